"""``GET /``: the landing page a person sees when opening the printed URL."""

from __future__ import annotations

import html.parser
import json
import urllib.parse
import urllib.request
from collections.abc import Iterator

import pytest
from _fakes import ALPHA, BETA

from service.config import ServiceConfig
from service.server import landing_url, start_in_thread

pytestmark = pytest.mark.http


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "href" and value is not None:
                self.hrefs.append(value)
            if name == "src" and value is not None:
                self.external.append(value)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    url, stop = start_in_thread(ServiceConfig(port=0), {"alpha": ALPHA, "beta": BETA}, builder=None)
    try:
        yield landing_url(url)
    finally:
        stop()


def _get(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.status, resp.headers["Content-Type"], resp.read().decode("utf-8")


def test_landing_page_lists_each_router_with_working_links(base: str) -> None:
    status, ctype, body = _get(base)
    assert status == 200
    assert ctype == "text/html; charset=UTF-8"
    links = _Links()
    links.feed(body)
    assert links.external == []  # no script or image: nothing is fetched from elsewhere
    for rid in ("alpha", "beta"):
        assert f"/otp/routers/{rid}" in links.hrefs
        assert f"/otp/routers/{rid}/index/routes" in links.hrefs
    assert "/otp" in links.hrefs
    assert "/otp/routers" in links.hrefs
    assert body.count("(default)") == 1
    # every link stays on this server, and the RouterInfo links answer JSON for that router
    assert all(href.startswith("/") for href in links.hrefs)
    status, _, info = _get(urllib.parse.urljoin(base, "/otp/routers/beta"))
    assert json.loads(info)["routerId"] == "beta"


def test_sample_plan_link_lies_inside_the_router_extent(base: str) -> None:
    _, _, body = _get(base)
    links = _Links()
    links.feed(body)
    plans = [h for h in links.hrefs if h.startswith("/otp/routers/alpha/plan?")]
    assert len(plans) == 1
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(plans[0]).query)
    west, south, east, north = ALPHA.bounds
    for key in ("fromPlace", "toPlace"):
        lat, lon = (float(v) for v in query[key][0].split(","))
        assert south < lat < north
        assert west < lon < east
    assert query["mode"] == ["TRANSIT,WALK"]


def test_head_and_unknown_paths() -> None:
    url, stop = start_in_thread(ServiceConfig(port=0), {}, builder=None)
    try:
        root = landing_url(url)
        req = urllib.request.Request(root, method="HEAD")
        with urllib.request.urlopen(req, timeout=10) as resp:
            assert resp.status == 200
            assert resp.read() == b""
        _, _, body = _get(root)
        assert "No routers are loaded" in body
        with pytest.raises(urllib.error.HTTPError) as err:
            _get(urllib.parse.urljoin(root, "/index.php"))
        assert err.value.code == 404
    finally:
        stop()
