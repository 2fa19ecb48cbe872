"""Authentication of the write endpoints, and the password hashing helpers."""

from __future__ import annotations

import io

import pytest
from _fakes import ALICE, BOB, TEST_SCRYPT_N, Service, basic

from service import auth
from service.auth import (
    PasswordHashError,
    UserEntry,
    check_credentials,
    hash_password,
    parse_basic_authorization,
    verify_password,
)

pytestmark = pytest.mark.http

WRITES = [
    ("PUT", "/otp/routers/alpha"),
    ("PUT", "/otp/routers"),
    ("DELETE", "/otp/routers/alpha"),
    ("DELETE", "/otp/routers"),
    ("POST", "/otp/routers/alpha"),
    ("POST", "/otp/routers/save?routerId=alpha"),
]
OCTET = {"Content-Type": "application/octet-stream"}


@pytest.mark.parametrize(("method", "path"), WRITES)
def test_no_credentials_401(service: Service, method: str, path: str) -> None:
    resp = service.request(method, path, body=b"x", headers=OCTET)
    assert resp.status == 401
    assert resp.header("WWW-Authenticate") == 'Basic realm="OpenTripPlanner"'
    assert resp.json()["status"] == 401
    assert service.get("/otp/routers/alpha").status == 200  # nothing changed


@pytest.mark.parametrize(("method", "path"), WRITES)
def test_user_without_role_403(service: Service, method: str, path: str) -> None:
    resp = service.request(method, path, body=b"x", headers={**OCTET, **basic(*BOB)})
    assert resp.status == 403
    assert "ROUTERS" in resp.json()["message"]
    assert service.get("/otp/routers/alpha").status == 200


def test_wrong_password_401(service: Service) -> None:
    resp = service.request("DELETE", "/otp/routers/alpha", headers=basic(ALICE[0], "nope"))
    assert resp.status == 401
    assert resp.json()["message"] == "Incorrect password for OpenTripPlanner user 'alice'"
    assert resp.header("WWW-Authenticate") == 'Basic realm="OpenTripPlanner"'


def test_unknown_user_401_same_message_shape(service: Service) -> None:
    resp = service.request("DELETE", "/otp/routers/alpha", headers=basic("mallory", "x"))
    assert resp.status == 401
    assert resp.json()["message"] == "Incorrect password for OpenTripPlanner user 'mallory'"


def test_malformed_authorization_401(service: Service) -> None:
    for header in ["Basic !!!", "Bearer abc", "Basic " + "YWxpY2U="]:  # last: no colon
        resp = service.request("DELETE", "/otp/routers/alpha", headers={"Authorization": header})
        assert resp.status == 401


def test_right_user_passes(service: Service) -> None:
    resp = service.request("DELETE", "/otp/routers/alpha", headers=basic(*ALICE))
    assert resp.status == 200


@pytest.mark.parametrize(("method", "path"), WRITES)
def test_no_users_configured_403(make_service, method: str, path: str) -> None:
    svc = make_service(users={})
    resp = svc.request(method, path, body=b"x", headers={**OCTET, **basic(*ALICE)})
    assert resp.status == 403
    assert "Writes are disabled" in resp.json()["message"]
    assert svc.get("/otp/routers/alpha").status == 200


def test_basic_over_http_can_be_refused(make_service) -> None:
    svc = make_service(allow_basic_auth_over_http=False)
    resp = svc.request("DELETE", "/otp/routers/alpha", headers=basic(*ALICE))
    assert resp.status == 401
    assert "transport layer security" in resp.json()["message"]


# -- helpers ----------------------------------------------------------------------------------


def test_hash_roundtrip_and_salt() -> None:
    h1 = hash_password("pw", n=TEST_SCRYPT_N)
    h2 = hash_password("pw", n=TEST_SCRYPT_N)
    assert h1 != h2  # salted
    assert h1.startswith(f"scrypt${TEST_SCRYPT_N}$8$1$")
    assert verify_password("pw", h1)
    assert not verify_password("pw2", h1)


@pytest.mark.parametrize(
    "bad", ["", "plain", "scrypt$3$8$1$AAAA$AAAA", "scrypt$16$8$1$!!$AAAA", "pbkdf2$1$2$3$4$5"]
)
def test_bad_hashes_rejected(bad: str) -> None:
    with pytest.raises(PasswordHashError):
        UserEntry("x", bad)


def test_parse_basic() -> None:
    assert parse_basic_authorization(basic("a", "b:c")["Authorization"]) == ("a", "b:c")
    assert parse_basic_authorization(None) is None
    assert parse_basic_authorization("Digest abc") is None


def test_check_credentials(users) -> None:
    assert check_credentials(users, *ALICE) is users["alice"]
    assert check_credentials(users, "alice", "wrong") is None
    assert check_credentials(users, "nobody", "x") is None


def test_user_repr_hides_hash(users) -> None:
    assert "scrypt" not in repr(users["alice"])


def test_cli_hashes_stdin(monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("s3cret\n"))
    assert auth.main(["--n", str(TEST_SCRYPT_N)]) == 0
    printed = capsys.readouterr().out.strip()
    assert verify_password("s3cret", printed)


def test_cli_refuses_empty(monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    assert auth.main([]) == 2
