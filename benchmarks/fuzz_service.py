"""Fuzz the live service with schemathesis: every endpoint of ``/otp/openapi.json``.

Usage::

    .venv/bin/python benchmarks/fuzz_service.py [--data DIR] [--examples 200] [--seed 0]

A real server runs on loopback over the demo city (router ``demo``, the default) and
the tiny Atlanta feed (``atlanta``).  For each operation of the served OpenAPI
document schemathesis draws ``--examples`` requests from the document (positive data)
and as many that break it (negative data), with a fixed seed; each answer is checked:

* no status >= 500 (``not_a_server_error``);
* the status is one the document declares, with its media type and body schema
  (``status_code_conformance``, ``content_type_conformance``,
  ``response_schema_conformance``);
* negative data is refused with a 4xx (``negative_data_rejection``), except on
  ``/plan``, which answers a bad parameter as OTP 1.x did: HTTP 200 with the OTP
  error object (the document says so).

:func:`fuzz_links` is schemathesis' stateful run: call sequences that follow the
document's OpenAPI links (a created scenario, point set or surface -> the operations
on it).  The test suite runs :func:`fuzz` with a few examples per operation and a
bounded :func:`fuzz_links` over the scenario operations
(``tests/service/test_fuzz.py``); this script is the long run.  It prints a summary
and writes ``benchmarks/results/fuzz_service.json``.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hypothesis
import requests
import schemathesis
from hypothesis import HealthCheck, Phase
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: Operations left out: the opt-in script runner and the dashboard's own pages.
SKIPPED_PATH_PARTS = ("/scripting/", "/dashboard")
#: Operations that answer bad input with HTTP 200 and OTP's error object (the plan's
#: ``error``; the ride-hail estimates' ``{"error": ...}``, as OTP 1.x answered them).
OTP_200_REFUSALS = ("/plan", "/transportation_network_company/")


@dataclass
class FuzzReport:
    """What a fuzz run sent and found."""

    requests: int = 0
    server_errors: int = 0
    by_status: collections.Counter[int] = field(default_factory=collections.Counter)
    failures: list[str] = field(default_factory=list)
    operations: int = 0
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "operations": self.operations,
            "requests": self.requests,
            "server_errors": self.server_errors,
            "failures": len(self.failures),
            "by_status": dict(sorted(self.by_status.items())),
            "seconds": round(self.seconds, 1),
            "requests_per_s": round(self.requests / self.seconds, 1) if self.seconds else None,
            "first_failures": self.failures[:20],
        }


def _checks(path: str, mode: GenerationMode) -> list[Any]:
    checks = [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
    ]
    if mode is GenerationMode.NEGATIVE and not any(p in path for p in OTP_200_REFUSALS):
        checks.append(negative_data_rejection)
    return checks


def fuzz(
    base_url: str,
    document: Mapping[str, Any],
    *,
    examples: int,
    seed: int = 0,
    modes: Iterable[GenerationMode] = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE),
    path_parameters: Mapping[str, Any] | None = None,
) -> FuzzReport:
    """Send schemathesis' requests for every operation of ``document``; check each answer.

    Parameters
    ----------
    base_url
        The server's root (``http://127.0.0.1:PORT``).
    document
        Its OpenAPI document (``GET /otp/openapi.json``).
    examples
        Requests per operation and generation mode (at most).
    seed
        Hypothesis' seed: the same seed sends the same requests.
    modes
        Positive and/or negative data.
    path_parameters
        Fixed path parameters (``{"routerId": "demo"}``) so most requests reach a router.

    Returns
    -------
    FuzzReport
    """
    schema = schemathesis.openapi.from_dict(dict(document))
    report = FuzzReport()
    session = requests.Session()
    started = time.perf_counter()
    for result in schema.get_all_operations():
        operation = result.ok()
        if any(part in operation.path for part in SKIPPED_PATH_PARTS):
            continue
        report.operations += 1
        fixed = {
            name: value
            for name, value in (path_parameters or {}).items()
            if "{" + name + "}" in operation.path
        }
        for mode in modes:
            _fuzz_operation(
                operation, mode, fixed, base_url, session, report, examples=examples, seed=seed
            )
    report.seconds = time.perf_counter() - started
    return report


def _fuzz_operation(
    operation: Any,
    mode: GenerationMode,
    path_parameters: Mapping[str, Any],
    base_url: str,
    session: requests.Session,
    report: FuzzReport,
    *,
    examples: int,
    seed: int,
) -> None:
    try:
        strategy = operation.as_strategy(
            generation_mode=mode, path_parameters=dict(path_parameters) or None
        )
    except Exception as exc:  # an operation schemathesis cannot generate for (e.g. no body)
        report.failures.append(f"{mode} {operation.label}: no strategy: {exc}")
        return
    checks = _checks(operation.path, mode)

    @hypothesis.settings(
        max_examples=examples,
        derandomize=False,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        verbosity=hypothesis.Verbosity.quiet,
    )
    @hypothesis.seed(seed)
    @hypothesis.given(strategy)
    def run(case: Any) -> None:
        try:
            response = case.call(base_url=base_url, session=session, timeout=60)
        except requests.RequestException as exc:
            report.failures.append(f"{case.method} {case.formatted_path}: transport: {exc}")
            return
        report.requests += 1
        report.by_status[response.status_code] += 1
        if response.status_code >= 500:
            report.server_errors += 1
        try:
            case.validate_response(response, checks=checks)
        except (Exception, BaseExceptionGroup) as exc:  # a failed check: recorded, no shrinking
            first = str(exc).strip().splitlines()[:6]
            report.failures.append(
                f"{mode} {case.method} {response.request.path_url} -> "
                f"{response.status_code}: {' | '.join(first)}"
            )

    with contextlib.suppress(hypothesis.errors.Unsatisfiable):
        run()


@dataclass
class LinkReport:
    """What a stateful run sent: answers per ``(method, path template, status)``."""

    calls: collections.Counter[tuple[str, str, int]] = field(default_factory=collections.Counter)
    seconds: float = 0.0

    @property
    def server_errors(self) -> int:
        """Answers >= 500."""
        return sum(n for (_, _, status), n in self.calls.items() if status >= 500)


def fuzz_links(
    base_url: str,
    document: Mapping[str, Any],
    *,
    examples: int,
    steps: int = 3,
    headers: Mapping[str, str] | None = None,
    path_parameters: Mapping[str, Any] | None = None,
) -> LinkReport:
    """Schemathesis' stateful run: sequences of calls that follow the document's links.

    The state machine starts with an operation (``POST /otp/routers/{routerId}/scenarios``)
    and, when it answers with success, follows the answer's OpenAPI links with the
    values they name (``$response.body#/id`` -> ``scenarioId``) to the linked
    operations (``GET``/``DELETE .../scenarios/{scenarioId}``).  Every answer is checked
    as in :func:`fuzz` (no 5xx, declared status, media type and body schema); a failed
    check raises.  Hypothesis runs derandomized: the same document sends the same calls.

    Parameters
    ----------
    base_url
        The server's root.
    document
        The OpenAPI document, or the part of it to run (its linked operations).
    examples
        Sequences to run.
    steps
        Calls per sequence at most.
    headers
        Sent with every call (``Authorization`` for the writes).
    path_parameters
        Fixed path parameters (``{"routerId": "demo"}``).

    Returns
    -------
    LinkReport
    """
    schema = schemathesis.openapi.from_dict(dict(document))
    report = LinkReport()
    fixed = dict(path_parameters or {})
    checks = _checks("", GenerationMode.POSITIVE)

    class Machine(schema.as_state_machine()):  # type: ignore[misc]
        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            names = {n for n in fixed if "{" + n + "}" in case.path}
            case.path_parameters = {**(case.path_parameters or {}), **{n: fixed[n] for n in names}}
            return {"base_url": base_url, "headers": dict(headers or {}), "timeout": 60}

        def after_call(self, response: Any, case: Any) -> None:
            report.calls[(case.method, case.path, response.status_code)] += 1

        def validate_response(self, response: Any, case: Any, *args: Any, **kwargs: Any) -> None:
            case.validate_response(response, checks=checks)

    started = time.perf_counter()
    Machine.run(
        settings=hypothesis.settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
    )
    report.seconds = time.perf_counter() - started
    return report


def _start_server(data_root: Path) -> tuple[str, Any]:
    sys.path.insert(0, str(ROOT))
    from otpa.network import build_network
    from otpa.testing.demo import demo_network
    from service.config import ServiceConfig
    from service.server import start_in_thread

    networks = {"demo": demo_network(), "atlanta": build_network(data_root / "tiny" / "atlanta")}
    url, stop = start_in_thread(ServiceConfig(port=0), networks)
    return url.removesuffix("/otp/routers/default"), stop


def main(argv: list[str] | None = None) -> int:
    """Run the long fuzz and print its numbers."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    base, stop = _start_server(args.data)
    try:
        document = requests.get(f"{base}/otp/openapi.json", timeout=60).json()
        report = FuzzReport()
        for router in ("demo", "atlanta"):
            part = fuzz(
                base,
                document,
                examples=args.examples,
                seed=args.seed,
                path_parameters={"routerId": router},
            )
            report.requests += part.requests
            report.server_errors += part.server_errors
            report.by_status.update(part.by_status)
            report.failures.extend(part.failures)
            report.operations = part.operations
            report.seconds += part.seconds
    finally:
        stop()
    summary = report.summary()
    print(json.dumps(summary, indent=1))
    out = HERE / "results" / "fuzz_service.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(summary, indent=1))
    return 0 if report.server_errors == 0 and not report.failures else 1


if __name__ == "__main__":
    sys.exit(main())
