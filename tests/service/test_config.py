"""load_config: files, environment, validation, unknown-key warnings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _fakes import TEST_SCRYPT_N

from service.auth import hash_password
from service.config import (
    DEFAULT_MAX_UPLOAD_BYTES,
    ConfigError,
    ConfigWarning,
    ServiceConfig,
    load_config,
    parse_users_env,
)

HASH = hash_password("pw", n=TEST_SCRYPT_N)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults() -> None:
    config = load_config(None, env={})
    assert config == ServiceConfig()
    assert (config.host, config.port) == ("127.0.0.1", 8080)
    assert config.max_upload_bytes == DEFAULT_MAX_UPLOAD_BYTES == 512 * 1024**2
    assert config.users == {}
    assert config.cors
    assert config.allow_basic_auth_over_http


def test_yaml_file(tmp_path: Path) -> None:
    path = write(
        tmp_path / "service.yml",
        f"""
graphs_dir: graphs
routers: [portland, seattle]
port: 9000
max_upload_bytes: 1000
cors: false
users:
  alice: {{password_hash: "{HASH}", roles: [ROUTERS]}}
  bob: {{password_hash: "{HASH}"}}
""",
    )
    config = load_config(path, env={})
    assert config.graphs_dir == tmp_path / "graphs"  # relative to the file
    assert config.routers == ("portland", "seattle")
    assert (config.port, config.max_upload_bytes, config.cors) == (9000, 1000, False)
    assert config.users["alice"].roles == {"ROUTERS"}
    assert config.users["bob"].roles == frozenset()


def test_json_file(tmp_path: Path) -> None:
    path = write(tmp_path / "service.json", json.dumps({"host": "0.0.0.0", "routers": "a,b"}))
    config = load_config(path, env={})
    assert config.host == "0.0.0.0"
    assert config.routers == ("a", "b")


def test_unknown_keys_warn(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.yml",
        f"prot: 1\nusers:\n  a: {{password_hash: '{HASH}', role: [ROUTERS]}}\n",
    )
    with pytest.warns(ConfigWarning) as record:
        load_config(path, env={})
    messages = sorted(str(w.message) for w in record)
    assert messages == ["unknown config key 'prot' ignored", "unknown key users.a.role ignored"]


@pytest.mark.parametrize(
    "text",
    [
        "port: '8080'",
        "port: true",
        "port: 70000",
        "cors: 'yes'",
        "routers: [../x]",
        "routers: 5",
        "max_upload_bytes: 0",
        "users: [alice]",
        "users: {alice: {password_hash: plain}}",
        "users: {alice: {roles: [ROUTERS]}}",
        "- a list",
        "port: [",
    ],
)
def test_invalid_values(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError):
        load_config(write(tmp_path / "bad.yml", text), env={})


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.yml", env={})


def test_environment_overrides(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.yml", f"port: 1\nusers:\n  alice: {{password_hash: '{HASH}', roles: []}}\n"
    )
    env = {
        "OTPA_PORT": "2",
        "OTPA_HOST": "::1",
        "OTPA_GRAPHS_DIR": str(tmp_path / "g"),
        "OTPA_ROUTERS": "x, y",
        "OTPA_USERS": f"alice:{HASH}:ROUTERS;bob:{HASH}",
    }
    config = load_config(path, env=env)
    assert (config.port, config.host, config.graphs_dir) == (2, "::1", tmp_path / "g")
    assert config.routers == ("x", "y")
    assert config.users["alice"].roles == {"ROUTERS"}  # env wins
    assert config.users["bob"].roles == frozenset()


def test_users_env_format() -> None:
    users = parse_users_env(f" alice:{HASH}:ROUTERS,ADMIN \n\nbob:{HASH}: ;")
    assert users["alice"].roles == {"ROUTERS", "ADMIN"}
    assert users["bob"].roles == frozenset()
    for bad in ["alice", "alice:", f":{HASH}", "alice:nothash"]:
        with pytest.raises(ConfigError):
            parse_users_env(bad)


def test_config_is_frozen() -> None:
    config = ServiceConfig()
    with pytest.raises(AttributeError):
        config.port = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.users["x"] = None  # type: ignore[index]
