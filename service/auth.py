"""HTTP Basic authentication for the write endpoints, with salted scrypt password hashes.

Passwords are never stored: configuration holds hashes of the form::

    scrypt$<N>$<r>$<p>$<salt, base64>$<digest, base64>

made by :func:`hash_password` (or ``python -m service.auth``, which reads a
password on stdin and prints its hash).  Checks use :func:`hmac.compare_digest`,
and an unknown user name costs the same scrypt work as a known one.

There is no built-in user: with no users configured every write is refused.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import getpass
import hashlib
import hmac
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "DEFAULT_SCRYPT_N",
    "ROLE_ROUTERS",
    "PasswordHashError",
    "ScryptHash",
    "UserEntry",
    "check_credentials",
    "hash_password",
    "main",
    "parse_basic_authorization",
    "parse_password_hash",
    "verify_password",
]

#: The role that OTP 1.x required for PUT/POST/DELETE on ``/otp/routers``.
ROLE_ROUTERS = "ROUTERS"
#: scrypt cost parameters of new hashes (about 16 MiB and some tens of ms per check).
DEFAULT_SCRYPT_N = 2**14
DEFAULT_SCRYPT_R = 8
DEFAULT_SCRYPT_P = 1
_SCHEME = "scrypt"
_SALT_BYTES = 16
_DIGEST_BYTES = 32
_MAX_N, _MAX_R, _MAX_P = 2**20, 32, 16
# A well-formed hash nobody's password matches: checked for unknown user names so
# that they cost the same time as known ones.
_DUMMY_HASH = (
    f"{_SCHEME}${DEFAULT_SCRYPT_N}${DEFAULT_SCRYPT_R}${DEFAULT_SCRYPT_P}$"
    f"{base64.b64encode(bytes(_SALT_BYTES)).decode()}${base64.b64encode(bytes(_DIGEST_BYTES)).decode()}"
)


class PasswordHashError(ValueError):
    """A configured password hash is not of the ``scrypt$N$r$p$salt$digest`` form."""


@dataclass(frozen=True)
class UserEntry:
    """One configured user.

    Attributes
    ----------
    name
        The user name sent in HTTP Basic credentials.
    password_hash
        ``scrypt$N$r$p$salt$digest`` as made by :func:`hash_password`.
    roles
        Roles granted, e.g. ``{"ROUTERS"}``.
    """

    name: str
    password_hash: str
    roles: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        parse_password_hash(self.password_hash)
        object.__setattr__(self, "roles", frozenset(self.roles))

    def __repr__(self) -> str:
        return f"UserEntry(name={self.name!r}, roles={sorted(self.roles)!r})"


@dataclass(frozen=True)
class ScryptHash:
    """The parsed parts of a stored password hash."""

    n: int
    r: int
    p: int
    salt: bytes
    digest: bytes


def _b64decode(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def parse_password_hash(text: str) -> ScryptHash:
    """Parse and check a ``scrypt$N$r$p$salt$digest`` hash.

    Parameters
    ----------
    text
        The stored hash.

    Returns
    -------
    ScryptHash

    Raises
    ------
    PasswordHashError
        If the text is malformed or its parameters are out of range.
    """
    parts = text.split("$") if isinstance(text, str) else []
    if len(parts) != 6 or parts[0] != _SCHEME:
        msg = "password hash must look like 'scrypt$N$r$p$salt_b64$hash_b64'"
        raise PasswordHashError(msg)
    try:
        n, r, p = (int(v) for v in parts[1:4])
        salt, digest = _b64decode(parts[4]), _b64decode(parts[5])
    except (ValueError, binascii.Error, UnicodeEncodeError) as exc:
        msg = f"password hash has a malformed field: {exc}"
        raise PasswordHashError(msg) from None
    if not (1 < n <= _MAX_N and n & (n - 1) == 0 and 0 < r <= _MAX_R and 0 < p <= _MAX_P):
        msg = f"password hash has out-of-range scrypt parameters N={n} r={r} p={p}"
        raise PasswordHashError(msg)
    if not salt or not digest:
        msg = "password hash has an empty salt or digest"
        raise PasswordHashError(msg)
    return ScryptHash(n, r, p, salt, digest)


def _scrypt(password: str, n: int, r: int, p: int, salt: bytes, dklen: int) -> bytes:
    maxmem = 128 * r * (n + p + 2) + 2**20
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=maxmem, dklen=dklen
    )


def hash_password(
    password: str,
    *,
    n: int = DEFAULT_SCRYPT_N,
    r: int = DEFAULT_SCRYPT_R,
    p: int = DEFAULT_SCRYPT_P,
    salt: bytes | None = None,
) -> str:
    """Hash a password with scrypt and a random salt.

    Parameters
    ----------
    password
        The clear-text password.
    n, r, p
        scrypt cost parameters (``n`` a power of two).
    salt
        Salt bytes; random when None (only tests pass one).

    Returns
    -------
    str
        ``scrypt$N$r$p$salt_b64$hash_b64``.

    Examples
    --------
    >>> h = hash_password("secret", n=2**10)
    >>> h.startswith("scrypt$1024$8$1$"), verify_password("secret", h)
    (True, True)
    """
    salt = os.urandom(_SALT_BYTES) if salt is None else salt
    digest = _scrypt(password, n, r, p, salt, _DIGEST_BYTES)
    b64 = base64.b64encode
    return f"{_SCHEME}${n}${r}${p}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, password_hash: str) -> bool:
    """Check a password against a stored hash in constant time.

    Parameters
    ----------
    password
        The clear-text password offered.
    password_hash
        The stored ``scrypt$...`` hash.

    Returns
    -------
    bool
        True when they match.
    """
    parsed = parse_password_hash(password_hash)
    digest = _scrypt(password, parsed.n, parsed.r, parsed.p, parsed.salt, len(parsed.digest))
    return hmac.compare_digest(digest, parsed.digest)


def parse_basic_authorization(header: str | None) -> tuple[str, str] | None:
    """Decode an ``Authorization: Basic ...`` header.

    Parameters
    ----------
    header
        The raw header value, or None.

    Returns
    -------
    tuple of (str, str) or None
        ``(user, password)``, or None when the header is missing, not Basic, or
        malformed.

    Examples
    --------
    >>> parse_basic_authorization("Basic YWxpY2U6czNjcjN0")
    ('alice', 's3cr3t')
    """
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "basic" or not token:
        return None
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    user, sep, password = decoded.partition(":")
    if not sep:
        return None
    return user, password


def check_credentials(users: Mapping[str, UserEntry], name: str, password: str) -> UserEntry | None:
    """Return the user whose name and password match, or None.

    An unknown name still costs one scrypt evaluation, so response times do not
    tell which user names exist.  This is CPU work: call it off the event loop.

    Parameters
    ----------
    users
        Configured users by name.
    name, password
        The offered credentials.

    Returns
    -------
    UserEntry or None
    """
    user = users.get(name)
    if user is None:
        verify_password(password, _DUMMY_HASH)
        return None
    return user if verify_password(password, user.password_hash) else None


def _read_password(stdin_is_tty: bool) -> str:
    if stdin_is_tty:
        first = getpass.getpass("Password: ")
        if getpass.getpass("Repeat: ") != first:
            msg = "passwords do not match"
            raise SystemExit(msg)
        return first
    return sys.stdin.readline().rstrip("\r\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Read a password (first line of stdin, or prompted on a terminal) and print its hash.

    Parameters
    ----------
    argv
        Command-line arguments (``--n`` sets the scrypt cost).

    Returns
    -------
    int
        The exit status.
    """
    parser = argparse.ArgumentParser(
        prog="python -m service.auth",
        description="Hash a password for the otpa service 'users' configuration.",
    )
    parser.add_argument("--n", type=int, default=DEFAULT_SCRYPT_N, help="scrypt N (power of 2)")
    args = parser.parse_args(argv)
    password = _read_password(sys.stdin.isatty())
    if not password:
        print("error: empty password", file=sys.stderr)
        return 2
    try:
        print(hash_password(password, n=args.n))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
