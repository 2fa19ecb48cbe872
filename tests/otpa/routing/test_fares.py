"""GTFS fares v1 as OTP 1.x's DefaultFareServiceImpl computes them.

Expected prices are read independently from the feeds' ``fare_attributes.txt``,
``fare_rules.txt`` and ``stops.txt`` with the csv module; the fare-component cases
are those of OTP's own ``TestFares.testFareComponent``.
"""

from __future__ import annotations

import csv
import io
import zipfile
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from otpa.gtfs import read_gtfs
from otpa.routing._fare_rules import fare_index, float32, money, wrapped_currency
from otpa.routing.fares import FareRide, compute_fare
from otpa.routing.model import Fare, FareComponent, Money, WrappedCurrency
from otpa.transit.build import build_transit_model, empty_transit_model
from otpa.transit.model import TransitModel
from tests.conftest import require_data
from tests.fixtures.networks import built_network

USD = WrappedCurrency(currency="USD", currency_code="USD", symbol="$", default_fraction_digits=2)
CT = "caltrain_gtfs"
FC = "farecomponent_gtfs"


# -- helpers ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def transit(data_root: Path) -> TransitModel:
    return built_network(data_root, "tiny/transit-only").transit


def _csv(zip_path: Path, name: str) -> list[dict[str, str]]:
    with zipfile.ZipFile(zip_path) as zf:
        text = zf.read(name).decode("utf-8-sig")
    return [
        {k.strip(): (v or "").strip() for k, v in row.items()}
        for row in csv.DictReader(io.StringIO(text))
    ]


def _cents(price: str, digits: int = 2) -> int:
    return int((Decimal(price) * 10**digits).quantize(Decimal(1), rounding=ROUND_HALF_UP))


@cache
def _caltrain_tables(
    zip_path: Path,
) -> tuple[dict[str, str], dict[tuple[str, str], str], dict[str, str]]:
    zones = {r["stop_id"]: r["zone_id"] for r in _csv(zip_path, "stops.txt")}
    od = {
        (r["origin_id"], r["destination_id"]): r["fare_id"]
        for r in _csv(zip_path, "fare_rules.txt")
    }
    prices = {r["fare_id"]: r["price"] for r in _csv(zip_path, "fare_attributes.txt")}
    return zones, od, prices


def _caltrain_expected(data_root: Path, board: str, alight: str) -> tuple[str, int]:
    """Fare id and cents of a Caltrain ride, straight from the feed's files."""
    zones, od, prices = _caltrain_tables(data_root / "tiny" / "transit-only" / "caltrain_gtfs.zip")
    fare_id = od[(zones[board], zones[alight])]
    return fare_id, _cents(prices[fare_id])


def make_ride(
    model: TransitModel,
    board: str,
    alight: str,
    *,
    route: str | None = None,
    after: int = 0,
    leg_index: int = 0,
    day_start: int = 1_250_000_000,
) -> FareRide:
    """A ride of the model's timetable: the first trip leaving ``board`` at ``after`` or
    later (service-day seconds) that reaches ``alight``, optionally on ``route``."""
    stop_ids = model.stops["stop_id"].to_numpy(dtype=object)
    best: tuple[int, int, int, int, list[str]] | None = None
    for p in range(model.n_patterns):
        r_id = str(model.routes["route_id"].iat[int(model.pattern_route[p])])
        if route is not None and r_id != route:
            continue
        stops = [str(s) for s in stop_ids[model.pattern_stop_indices(p)]]
        if board not in stops:
            continue
        a = stops.index(board)
        if alight not in stops[a + 1 :]:
            continue
        b = stops.index(alight, a + 1)
        arr, dep = model.pattern_times(p)
        ok = np.flatnonzero(dep[:, a] >= after)
        if len(ok) == 0:
            continue
        k = int(ok[np.argmin(dep[ok, a])])
        if best is None or dep[k, a] < best[0]:
            trip = int(model.pattern_trip_indices(p)[k])
            best = (int(dep[k, a]), int(arr[k, b]), trip, p, stops[a : b + 1])
    assert best is not None, f"no trip from {board} to {alight}"
    dep_s, arr_s, trip, _, visited = best
    route_id = str(model.trips["route_id"].iat[trip])
    route_row = int(np.flatnonzero(model.routes["route_id"].to_numpy(dtype=object) == route_id)[0])
    return FareRide(
        leg_index=leg_index,
        route_id=route_id,
        agency_id=str(model.routes["agency_id"].iat[route_row]),
        trip_id=str(model.trips["trip_id"].iat[trip]),
        board_stop_id=board,
        alight_stop_id=alight,
        stop_ids=tuple(visited),
        start_time=day_start + dep_s,
        end_time=day_start + arr_s,
    )


def _arrival(ride: FareRide, day_start: int = 1_250_000_000) -> int:
    return ride.end_time - day_start


def _component(fare: Fare) -> tuple[FareComponent, ...]:
    return fare.details["regular"]


# -- money and currencies ------------------------------------------------------------------
def test_currencies_follow_java_8_in_en_us() -> None:
    assert wrapped_currency("USD") == USD
    assert wrapped_currency("usd") == USD
    eur = wrapped_currency("EUR")
    assert (eur.currency, eur.currency_code, eur.symbol, eur.default_fraction_digits) == (
        "EUR",
        "EUR",
        "EUR",
        2,
    )
    assert wrapped_currency("BRL").symbol == "BRL"
    assert wrapped_currency("JPY").default_fraction_digits == 0
    assert wrapped_currency("KWD").default_fraction_digits == 3
    assert wrapped_currency("ZZZ").default_fraction_digits == 2  # unknown: no crash


def test_money_rounds_java_floats_and_flags_unknown_totals() -> None:
    assert money(USD, float32(4.7)).cents == 470
    assert money(USD, float32(float32(4.7) + float32(4.7))).cents == 940
    assert money(USD, float32(2.675)).cents == 267  # the float is 2.67499995...
    assert money(USD, float32(0.145)).cents == 14
    assert money(wrapped_currency("JPY"), 210.0).cents == 210
    assert money(USD, float("inf")).cents == -1  # (int) Math.round(Infinity) in Java


# -- Caltrain: zone-pair fares ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("board", "alight"),
    [
        ("Millbrae Caltrain", "Mountain View Caltrain"),  # OTP TestFares.testBasic: 425
        ("Mountain View Caltrain", "Millbrae Caltrain"),
        ("San Francisco Caltrain", "San Jose Caltrain"),
        ("San Francisco Caltrain", "22nd Street Caltrain"),
        ("Palo Alto Caltrain", "Gilroy Caltrain"),
        ("Gilroy Caltrain", "San Francisco Caltrain"),
    ],
)
def test_caltrain_single_ride(
    transit: TransitModel, data_root: Path, board: str, alight: str
) -> None:
    ride = make_ride(transit, f"{CT}:{board}", f"{CT}:{alight}", leg_index=1)
    fare_id, cents = _caltrain_expected(data_root, board, alight)
    fare = compute_fare(transit, [ride])
    assert fare is not None
    assert fare.fare == {"regular": Money(cents=cents, currency=USD)}
    assert _component(fare) == (
        FareComponent(
            fare_id=f"{CT}:{fare_id}",
            price=Money(cents=cents, currency=USD),
            routes=(ride.route_id,),
            leg_index=1,
            is_transfer=False,
        ),
    )


def test_caltrain_millbrae_to_mountain_view_is_otp_425(transit: TransitModel) -> None:
    ride = make_ride(transit, f"{CT}:Millbrae Caltrain", f"{CT}:Mountain View Caltrain")
    fare = compute_fare(transit, [ride])
    assert fare is not None
    assert fare.fare["regular"] == Money(cents=425, currency=USD)


def test_caltrain_transfer_between_routes_is_one_zone_fare(
    transit: TransitModel, data_root: Path
) -> None:
    # Caltrain fares allow unlimited transfers, so the cheapest cover of a local ride
    # followed by a bullet ride is the single fare of first zone -> last zone.
    first = make_ride(
        transit,
        f"{CT}:San Francisco Caltrain",
        f"{CT}:Millbrae Caltrain",
        route=f"{CT}:ct_local",
        after=8 * 3600,
        leg_index=1,
    )
    second = make_ride(
        transit,
        f"{CT}:Millbrae Caltrain",
        f"{CT}:San Jose Caltrain",
        route=f"{CT}:ct_bullet",
        after=_arrival(first),
        leg_index=3,
    )
    assert first.route_id != second.route_id
    fare_id, cents = _caltrain_expected(data_root, "San Francisco Caltrain", "San Jose Caltrain")
    _, first_cents = _caltrain_expected(data_root, "San Francisco Caltrain", "Millbrae Caltrain")
    _, second_cents = _caltrain_expected(data_root, "Millbrae Caltrain", "San Jose Caltrain")
    assert cents < first_cents + second_cents  # the through fare is the cheaper cover

    fare = compute_fare(transit, [first, second])
    assert fare is not None
    assert fare.fare["regular"] == Money(cents=cents, currency=USD)
    (comp,) = _component(fare)
    assert comp.fare_id == f"{CT}:{fare_id}"
    assert comp.routes == (f"{CT}:ct_local", f"{CT}:ct_bullet")
    assert comp.leg_index == 1


def test_caltrain_three_rides(transit: TransitModel, data_root: Path) -> None:
    legs = [
        ("San Francisco Caltrain", "Millbrae Caltrain", "ct_local"),
        ("Millbrae Caltrain", "Palo Alto Caltrain", "ct_limited"),
        ("Palo Alto Caltrain", "San Jose Caltrain", "ct_local"),
    ]
    rides: list[FareRide] = []
    after = 7 * 3600
    for i, (a, b, route) in enumerate(legs):
        ride = make_ride(
            transit, f"{CT}:{a}", f"{CT}:{b}", route=f"{CT}:{route}", after=after, leg_index=2 * i
        )
        rides.append(ride)
        after = _arrival(ride)
    fare_id, cents = _caltrain_expected(data_root, "San Francisco Caltrain", "San Jose Caltrain")
    fare = compute_fare(transit, rides)
    assert fare is not None
    assert fare.fare["regular"].cents == cents
    (comp,) = _component(fare)
    assert comp.fare_id == f"{CT}:{fare_id}"
    assert comp.routes == tuple(r.route_id for r in rides)


def test_consecutive_rides_on_one_route_are_one_ride(
    transit: TransitModel, data_root: Path
) -> None:
    # OTP starts a new ride only when the route changes.
    first = make_ride(
        transit, f"{CT}:San Francisco Caltrain", f"{CT}:Millbrae Caltrain", route=f"{CT}:ct_local"
    )
    second = make_ride(
        transit,
        f"{CT}:Millbrae Caltrain",
        f"{CT}:Mountain View Caltrain",
        route=f"{CT}:ct_local",
        after=_arrival(first) + 1800,
        leg_index=2,
    )
    fare_id, cents = _caltrain_expected(
        data_root, "San Francisco Caltrain", "Mountain View Caltrain"
    )
    fare = compute_fare(transit, [first, second])
    assert fare is not None
    assert fare.fare["regular"].cents == cents
    assert _component(fare) == (
        FareComponent(
            fare_id=f"{CT}:{fare_id}",
            price=Money(cents=cents, currency=USD),
            routes=(f"{CT}:ct_local",),
            leg_index=0,
        ),
    )


# -- the fare-component feed (OTP TestFares.testFareComponent) -------------------------------
_FC_LEGS = {"A": "1", "B": "2", "C": "3", "D": "4", "E": "5", "F": "6"}  # stop -> route leaving it


def _fc_rides(origin: str, destination: str) -> list[FareRide]:
    stops = "ABCDEFG"
    rides = []
    t = 1_250_000_000
    for i in range(stops.index(origin), stops.index(destination)):
        a, b = stops[i], stops[i + 1]
        rides.append(
            FareRide(
                leg_index=len(rides) * 2 + 1,
                route_id=f"{FC}:{_FC_LEGS[a]}",
                agency_id=f"{FC}:agency",
                trip_id=f"{FC}:{_FC_LEGS[a]}",
                board_stop_id=f"{FC}:{a}",
                alight_stop_id=f"{FC}:{b}",
                stop_ids=(f"{FC}:{a}", f"{FC}:{b}"),
                start_time=t,
                end_time=t + 60,
            )
        )
        t += 120
    return rides


TEN = Money(cents=1000, currency=USD)


@pytest.mark.parametrize(
    ("origin", "destination", "total", "components"),
    [
        ("A", "B", 1000, [("AB", ["1"])]),  # base case
        ("A", "C", 2000, [("AB", ["1"]), ("BC", ["2"])]),  # two components
        ("B", "D", 1000, [("BD", ["2", "3"])]),  # one fare over two rides
        ("E", "G", 1000, [("EG", ["5", "6"])]),  # no fare for E-F or F-G alone
        ("C", "E", -1, [("CD", ["3"])]),  # no fare after
        ("D", "G", -1, [("EG", ["5", "6"])]),  # no fare before
        ("A", "D", 2000, [("AB", ["1"]), ("BD", ["2", "3"])]),  # cheapest split
    ],
)
def test_fare_component_feed(
    transit: TransitModel,
    origin: str,
    destination: str,
    total: int,
    components: list[tuple[str, list[str]]],
) -> None:
    rides = _fc_rides(origin, destination)
    fare = compute_fare(transit, rides)
    assert fare is not None
    assert fare.fare == {"regular": Money(cents=total, currency=USD)}
    got = _component(fare)
    assert [(c.fare_id, list(c.routes)) for c in got] == [
        (f"{FC}:{f}", [f"{FC}:{r}" for r in routes]) for f, routes in components
    ]
    assert all(c.price == TEN and not c.is_transfer for c in got)
    first_route = {r.route_id: r.leg_index for r in rides}
    assert [c.leg_index for c in got] == [first_route[c.routes[0]] for c in got]


def test_fare_component_feed_without_any_fare_is_none(transit: TransitModel) -> None:
    # D -> E: route 4 has no fare; OTP returns null, the itinerary has no "fare".
    assert compute_fare(transit, _fc_rides("D", "E")) is None


def test_transfer_limit_of_the_fare_component_feed(transit: TransitModel) -> None:
    # BD allows 1 transfer, so B -> E (three rides) cannot be priced as one BD-like fare;
    # B->D costs BD (both rides), D->E has no fare.
    fare = compute_fare(transit, _fc_rides("B", "E"))
    assert fare is not None
    assert fare.fare["regular"].cents == -1
    assert [c.fare_id for c in _component(fare)] == [f"{FC}:BD"]


# -- feeds without fares, empty input, mixed feeds --------------------------------------------
def test_no_rides_is_none(transit: TransitModel) -> None:
    assert compute_fare(transit, []) is None


def test_feed_without_fares_is_none(transit: TransitModel, data_root: Path) -> None:
    folder = data_root / "tiny" / "transit-only"
    assert not any(
        n.startswith("fare") for n in zipfile.ZipFile(folder / "testagency.zip").namelist()
    )
    ride = FareRide(
        leg_index=0,
        route_id="testagency:1",
        agency_id="testagency:agency",
        trip_id="testagency:1.1",
        board_stop_id="testagency:A",
        alight_stop_id="testagency:B",
        stop_ids=("testagency:A", "testagency:B"),
        start_time=1_250_000_000,
        end_time=1_250_000_600,
    )
    assert compute_fare(transit, [ride]) is None


def test_model_without_fares_is_none() -> None:
    ride = FareRide(0, "f:r", "f:a", "f:t", "f:s1", "f:s2", ("f:s1", "f:s2"), 0, 60)
    assert compute_fare(empty_transit_model(), [ride]) is None


def test_rides_of_two_feeds_are_priced_apart(transit: TransitModel, data_root: Path) -> None:
    ct = make_ride(transit, f"{CT}:Millbrae Caltrain", f"{CT}:Mountain View Caltrain")
    fc = _fc_rides("A", "B")[0]
    fare = compute_fare(transit, [ct, fc])
    assert fare is not None
    _, ct_cents = _caltrain_expected(data_root, "Millbrae Caltrain", "Mountain View Caltrain")
    assert fare.fare["regular"].cents == ct_cents + 1000
    assert [c.fare_id for c in _component(fare)] == [f"{CT}:OW_2", f"{FC}:AB"]


def test_a_ride_without_fare_makes_the_total_unknown(transit: TransitModel) -> None:
    ct = make_ride(transit, f"{CT}:Millbrae Caltrain", f"{CT}:Mountain View Caltrain")
    other = FareRide(
        1, "testagency:1", "testagency:agency", "testagency:1.1", "testagency:A", "testagency:B",
        ("testagency:A", "testagency:B"), ct.end_time + 600, ct.end_time + 1200,
    )  # fmt: skip
    fare = compute_fare(transit, [ct, other])
    assert fare is not None
    assert fare.fare["regular"].cents == -1
    assert [c.fare_id for c in _component(fare)] == [f"{CT}:OW_2"]


# -- rule semantics on a synthetic feed -----------------------------------------------------
_SYNTHETIC = {
    "agency.txt": "agency_id,agency_name,agency_url,agency_timezone\n"
    "A1,One,http://one.example,America/New_York\nA2,Two,http://two.example,America/New_York\n",
    "stops.txt": "stop_id,stop_name,stop_lat,stop_lon,zone_id\n"
    "S1,S1,40.0,-73.0,z1\nS2,S2,40.01,-73.0,z2\nS3,S3,40.02,-73.0,z3\n",
    "routes.txt": "route_id,agency_id,route_short_name,route_type\n"
    "R1,A1,1,3\nR2,A1,2,3\nR3,A2,3,3\n",
    "trips.txt": "route_id,service_id,trip_id\nR1,all,T1\nR2,all,T2\nR3,all,T3\n",
    "stop_times.txt": "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
    "T1,08:00:00,08:00:00,S1,1\nT1,08:05:00,08:05:00,S2,2\nT1,08:10:00,08:10:00,S3,3\n"
    "T2,08:00:00,08:00:00,S3,1\nT2,08:05:00,08:05:00,S2,2\n"
    "T3,08:00:00,08:00:00,S1,1\nT3,08:05:00,08:05:00,S2,2\n",
    "calendar.txt": "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,"
    "start_date,end_date\nall,1,1,1,1,1,1,1,20200101,20301231\n",
    "fare_attributes.txt": "fare_id,price,currency_type,payment_method,transfers,agency_id,"
    "transfer_duration\n"
    "CONTAINS,1.00,EUR,0,0,,\n"  # exactly zones z1 and z2
    "SKIP,0.10,EUR,0,0,,\n"  # exactly zones z1 and z3 (a ride S1->S3 passes z2)
    "DEST,0.50,EUR,0,0,,\n"  # destination z3 only: OTP matches rides *starting* in z3
    "AG,0.25,EUR,0,,A2,\n"  # agency A2 only
    "TD,1.20,EUR,0,,,600\n"  # routes R1/R2, boardings within 10 minutes
    "BASE,3.00,EUR,0,0,,\n",  # anything, single ride
    "fare_rules.txt": "fare_id,route_id,origin_id,destination_id,contains_id\n"
    "CONTAINS,,,,z1\nCONTAINS,,,,z2\nSKIP,,,,z1\nSKIP,,,,z3\nDEST,,,z3,\nTD,R1,,,\nTD,R2,,,\n",
}


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> TransitModel:
    folder = tmp_path_factory.mktemp("syn")
    for name, text in _SYNTHETIC.items():
        (folder / name).write_text(text)
    return build_transit_model([read_gtfs(folder, feed_id="syn")])


def _syn(
    trip: str, board: str, alight: str, start: int, *, leg: int = 0, stops: tuple[str, ...] = ()
) -> FareRide:
    route = {"T1": "R1", "T2": "R2", "T3": "R3"}[trip]
    return FareRide(
        leg_index=leg,
        route_id=f"syn:{route}",
        agency_id="",
        trip_id=f"syn:{trip}",
        board_stop_id=f"syn:{board}",
        alight_stop_id=f"syn:{alight}",
        stop_ids=tuple(f"syn:{s}" for s in (stops or (board, alight))),
        start_time=start,
        end_time=start + 300,
    )


def _one(fare: Fare | None) -> tuple[str, int]:
    assert fare is not None
    (comp,) = fare.details["regular"]
    assert comp.price == fare.fare["regular"]
    return comp.fare_id.removeprefix("syn:"), comp.price.cents


def test_contains_needs_exactly_the_zones_visited(synthetic: TransitModel) -> None:
    assert _one(compute_fare(synthetic, [_syn("T1", "S1", "S2", 0)])) == ("CONTAINS", 100)
    # S1 -> S3 passes S2 (zone z2): not SKIP's {z1, z3}, even when only the ends are given.
    full = _syn("T1", "S1", "S3", 0, stops=("S1", "S2", "S3"))
    ends = _syn("T1", "S1", "S3", 0)
    assert _one(compute_fare(synthetic, [full])) == ("TD", 120)
    assert _one(compute_fare(synthetic, [ends])) == ("TD", 120)


def test_destination_only_rule_matches_the_boarding_zone_as_otp(synthetic: TransitModel) -> None:
    assert _one(compute_fare(synthetic, [_syn("T2", "S3", "S2", 0)])) == ("DEST", 50)
    # ending in z3 (from z1) does not get DEST
    assert _one(compute_fare(synthetic, [_syn("T1", "S1", "S3", 0)]))[0] != "DEST"


def test_fare_agency_restricts_the_agencies(synthetic: TransitModel) -> None:
    assert _one(compute_fare(synthetic, [_syn("T3", "S1", "S2", 0)])) == ("AG", 25)
    assert _one(compute_fare(synthetic, [_syn("T1", "S1", "S2", 0)])) == ("CONTAINS", 100)


def test_transfer_duration(synthetic: TransitModel) -> None:
    ride1 = _syn("T1", "S1", "S2", 0)
    within = _syn("T2", "S3", "S2", 600, leg=2)
    late = _syn("T2", "S3", "S2", 601, leg=2)
    fare = compute_fare(synthetic, [ride1, within])
    assert fare is not None
    assert fare.fare["regular"] == Money(cents=120, currency=wrapped_currency("EUR"))
    assert [(c.fare_id, c.routes, c.leg_index) for c in fare.details["regular"]] == [
        ("syn:TD", ("syn:R1", "syn:R2"), 0)
    ]
    fare = compute_fare(synthetic, [ride1, late])
    assert fare is not None
    assert fare.fare["regular"].cents == 150  # CONTAINS 1.00 + DEST 0.50
    assert [(c.fare_id, c.leg_index) for c in fare.details["regular"]] == [
        ("syn:CONTAINS", 0),
        ("syn:DEST", 2),
    ]


def test_currency_is_the_fares_currency(synthetic: TransitModel) -> None:
    fare = compute_fare(synthetic, [_syn("T1", "S1", "S2", 0)])
    assert fare is not None
    assert fare.fare["regular"].currency == WrappedCurrency("EUR", "EUR", "EUR", 2)


# -- Porto Alegre: BRL, no fare rules, no transfers -----------------------------------------
@pytest.fixture(scope="module")
def porto_alegre() -> TransitModel:
    folder = require_data("small", "porto-alegre")
    return build_transit_model(
        [read_gtfs(folder / "poa_eptc.zip"), read_gtfs(folder / "poa_trensurb.zip")]
    )


def test_porto_alegre_flat_fare_per_ride(porto_alegre: TransitModel) -> None:
    folder = require_data("small", "porto-alegre")
    (attr,) = _csv(folder / "poa_eptc.zip", "fare_attributes.txt")
    assert attr["transfers"] == "0"
    cents = _cents(attr["price"])
    brl = WrappedCurrency("BRL", "BRL", "BRL", 2)
    routes = porto_alegre.routes
    eptc = [str(r) for r in routes.loc[routes["feed"] == 0, "route_id"]][:2]
    trens = str(routes.loc[routes["feed"] == 1, "route_id"].iat[0])

    def ride(route: str, leg: int) -> FareRide:
        return FareRide(
            leg, route, "", "", "", "", (), 1_600_000_000 + leg * 900, 1_600_000_600 + leg * 900
        )

    fare = compute_fare(porto_alegre, [ride(eptc[0], 0)])
    assert fare is not None
    assert fare.fare["regular"] == Money(cents=cents, currency=brl)

    fare = compute_fare(porto_alegre, [ride(eptc[0], 0), ride(eptc[1], 2)])
    assert fare is not None
    assert fare.fare["regular"] == Money(cents=2 * cents, currency=brl)
    assert [c.leg_index for c in fare.details["regular"]] == [0, 2]

    fare = compute_fare(porto_alegre, [ride(eptc[0], 0), ride(trens, 2)])
    assert fare is not None
    assert fare.fare["regular"].cents == -1  # Trensurb has no fares
    assert compute_fare(porto_alegre, [ride(trens, 0)]) is None


# -- caching ------------------------------------------------------------------------
def test_rules_are_cached_per_model(transit: TransitModel) -> None:
    assert fare_index(transit) is fare_index(transit)
