"""A class on PostgreSQL: instructor and student roles, enforced by row-level security.

``setup_class`` (run by the database owner) makes two group roles, named
after the database (and schema, when it is not ``public``) so several
classes can share one server: members of the instructors' role publish and
unpublish decks and read every profile's rows; members of the students' role
read and write only the rows of the profile their login is bound to
(``class_logins``), and read the published decks. The owner is not a member
of either and keeps full access (row-level security is enabled, not forced).
Nothing here trusts the client: a student's connection that asks for another
profile's rows gets none, and one that writes them gets a permission error
from the server itself.

Setup is idempotent and rebuilds every grant and policy, so ``db upgrade``
runs it again after a migration adds a table.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import DBAPIError

from studyapp.store.database import StoreError

LOGINS_TABLE = "class_logins"
POLICY_OWN = "studyapp_own_rows"
POLICY_READ_ALL = "studyapp_instructors_read"
POLICY_LOGIN = "studyapp_own_login"
INSUFFICIENT_PRIVILEGE = "42501"
SETUP_LOCK = 7410292
"""The advisory lock ``setup_class`` holds (the store's migration lock is 7410291)."""
LOGIN_NAME = re.compile(r"[a-z][a-z0-9_]{0,62}")
"""A login name needs no quoting anywhere: lower case letters, digits and underscores."""
DECK_TABLES = frozenset({"published_decks", "published_deck_versions"})
"""Tables of published decks: what only instructors write."""
READ_ONLY_TABLES = frozenset({"alembic_version", LOGINS_TABLE})
"""Tables nobody but the owner writes (the schema version, the logins)."""

Standing = Literal["owner", "instructor", "student", "outsider"]


@dataclass(frozen=True)
class ClassRoles:
    """The two group roles of one class (one database, or one schema of it)."""

    instructors: str
    students: str


@dataclass(frozen=True)
class Denial:
    """A permission error from the server: which table, when the server named one."""

    table: str | None
    detail: str


class ClassSetupError(StoreError):
    """Setting up a class, or adding a login, cannot be done as asked; says why."""


def _base_name(database: str, schema: str) -> str:
    """The part of the roles' names that says which class: lower case, at most 40 characters."""
    raw = database if schema == "public" else f"{database}_{schema}"
    base = re.sub(r"[^a-z0-9_]", "_", raw.lower()).strip("_") or "studyapp"
    if not base[0].isalpha():
        base = f"c_{base}"
    if len(base) > 40:
        base = f"{base[:31]}_{hashlib.sha1(raw.encode()).hexdigest()[:8]}"
    return base


def roles_for(conn: Connection) -> ClassRoles:
    """The class roles of the database (and schema) this connection uses."""
    database, schema = conn.execute(text("SELECT current_database(), current_schema()")).one()
    base = _base_name(str(database), str(schema))
    return ClassRoles(instructors=f"{base}_instructors", students=f"{base}_students")


def _q(conn: Connection, name: str) -> str:
    return conn.dialect.identifier_preparer.quote_identifier(name)


def _require_postgres(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        raise ClassSetupError("class roles need PostgreSQL: an SQLite file is one learner's, "
                              "with no logins to tell apart; give --db postgresql+psycopg://...")


def _existing_roles(conn: Connection, names: list[str]) -> set[str]:
    rows = conn.execute(text("SELECT rolname FROM pg_roles WHERE rolname = ANY(:names)"),
                        {"names": names})
    return {str(r[0]) for r in rows}


def standing(engine: Engine) -> tuple[Standing, ClassRoles | None]:
    """What the connected login is in its class: owner, instructor, student, or outsider.

    A database without class roles (setup never ran) has only owners: every
    login that reaches it is one, as before roles existed. SQLite is always
    the owner's.
    """
    if engine.dialect.name != "postgresql":
        return "owner", None
    with engine.connect() as conn:
        roles = roles_for(conn)
        existing = _existing_roles(conn, [roles.instructors, roles.students])
        if not existing:
            return "owner", None
        owner = conn.execute(text(
            "SELECT r.rolsuper OR (c.oid IS NOT NULL AND pg_has_role(current_user, "
            "c.relowner, 'USAGE')) FROM pg_roles r LEFT JOIN pg_class c "
            "ON c.oid = to_regclass('profiles') WHERE r.rolname = current_user")).scalar()
        if owner:
            return "owner", roles
        for role, name in (("instructor", roles.instructors), ("student", roles.students)):
            if name in existing and conn.execute(
                    text("SELECT pg_has_role(current_user, :role, 'MEMBER')"),
                    {"role": name}).scalar():
                return role, roles  # type: ignore[return-value]
        return "outsider", roles


def login_profile(engine: Engine) -> str | None:
    """The profile the connected login is bound to, or None (no class, or not bound)."""
    if engine.dialect.name != "postgresql":
        return None
    try:
        with engine.connect() as conn:
            if conn.execute(text("SELECT to_regclass(:t)"),
                            {"t": LOGINS_TABLE}).scalar() is None:
                return None
            profile = conn.execute(text(f"SELECT profile FROM {LOGINS_TABLE} "
                                        f"WHERE login = current_user")).scalar()
    except DBAPIError as exc:
        if denial(exc) is None:
            raise
        return None  # a login outside the class may not even read the logins
    return None if profile is None else str(profile)


def denial(exc: BaseException) -> Denial | None:
    """The permission error ``exc`` carries (SQLSTATE 42501), or None when it is another error.

    Both a missing grant ("permission denied for table published_decks") and
    a row-level security check ("new row violates row-level security policy
    for table "card_states"") arrive with this state.
    """
    original = exc.orig if isinstance(exc, DBAPIError) else exc
    if getattr(original, "sqlstate", None) != INSUFFICIENT_PRIVILEGE:
        return None
    detail = str(original).strip().splitlines()[0] if str(original).strip() else ""
    found = re.search(r'(?:table|relation|sequence) "?([A-Za-z0-9_]+)"?', detail)
    return Denial(table=found.group(1) if found else None, detail=detail)


def _tables(conn: Connection) -> dict[str, bool]:
    """Every table of the current schema → whether its rows belong to a profile."""
    rows = conn.execute(text(
        "SELECT c.relname, EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid "
        "AND a.attname = 'profile_id' AND NOT a.attisdropped) FROM pg_class c "
        "WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')"))
    return {str(name): bool(per_profile) for name, per_profile in rows}


def _check_owner(conn: Connection, *, creates_roles: bool = True) -> None:
    owner = conn.execute(text(
        "SELECT r.rolsuper OR pg_has_role(current_user, c.relowner, 'USAGE'), "
        "r.rolsuper OR r.rolcreaterole FROM pg_roles r LEFT JOIN pg_class c "
        "ON c.oid = to_regclass('profiles') WHERE r.rolname = current_user")).one()
    if not owner[0]:
        raise ClassSetupError("only the database's owner (the login that created its tables) "
                              "can set up a class and add its logins")
    if creates_roles and not owner[1]:
        raise ClassSetupError("the database's owner needs the CREATEROLE attribute to make the "
                              "class's roles and logins (ALTER ROLE <owner> CREATEROLE, as a "
                              "superuser)")


def _own_profile_sql() -> str:
    """The profile id of the connected login (a subquery the server runs once per statement)."""
    return (f"(SELECT p.id FROM profiles p JOIN {LOGINS_TABLE} l ON l.profile = p.name "
            f"WHERE l.login = current_user)")


def setup_class(engine: Engine) -> ClassRoles:
    """Create (or bring up to date) the class's roles, grants and row-level policies."""
    _require_postgres(engine)
    with engine.begin() as conn:
        # one setup at a time per database: two at once would take the catalog's locks in
        # different orders and one would die of a deadlock
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SETUP_LOCK})
        tables = _tables(conn)
        if "profiles" not in tables:
            raise ClassSetupError("the database has no studyapp tables yet: open it once "
                                  "(studyapp --db URL stats) as its owner, then set up the class")
        roles = roles_for(conn)
        existing = _existing_roles(conn, [roles.instructors, roles.students])
        _check_owner(conn, creates_roles=len(existing) < 2)
        logins = conn.execute(text("SELECT rolname FROM pg_roles WHERE rolname = ANY(:names) "
                                   "AND (rolcanlogin OR rolsuper)"), {"names": sorted(existing)})
        for (taken,) in logins:  # a group role someone could log in as would be theirs
            raise ClassSetupError(f"the role {taken} exists and can log in, so it cannot be "
                                  f"this class's group role; rename or drop it first")
        for name in (roles.instructors, roles.students):
            if name not in existing:
                conn.exec_driver_sql(f"CREATE ROLE {_q(conn, name)} NOLOGIN")
        both = f"{_q(conn, roles.instructors)}, {_q(conn, roles.students)}"
        database = conn.execute(text("SELECT current_database()")).scalar()
        schema = conn.execute(text("SELECT current_schema()")).scalar()
        try:
            with conn.begin_nested():  # every login may connect unless the server says not
                conn.exec_driver_sql(f"GRANT CONNECT ON DATABASE {_q(conn, str(database))} "
                                     f"TO {both}")
        except DBAPIError as exc:
            if denial(exc) is None:
                raise
        conn.exec_driver_sql(f"GRANT USAGE ON SCHEMA {_q(conn, str(schema))} TO {both}")
        # before PostgreSQL 15 every login may create objects in the public schema, such as
        # a function the owner's queries would then find; a class's schema allows none
        # (a warning, not an error, where the owner does not own the schema)
        conn.exec_driver_sql(f"REVOKE CREATE ON SCHEMA {_q(conn, str(schema))} FROM PUBLIC")
        conn.exec_driver_sql(f"CREATE TABLE IF NOT EXISTS {LOGINS_TABLE} ("
                             f"login varchar(63) PRIMARY KEY, "
                             f"profile varchar(100) NOT NULL UNIQUE)")
        tables = _tables(conn)
        for table, per_profile in sorted(tables.items()):
            _secure_table(conn, roles, table, per_profile)
        conn.exec_driver_sql(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA "
                             f"{_q(conn, str(schema))} TO {both}")
    return roles


def _secure_table(conn: Connection, roles: ClassRoles, table: str, per_profile: bool) -> None:
    """The grants and policies of one table, rebuilt from nothing (so setup can run again)."""
    name = _q(conn, table)
    instructors, students = _q(conn, roles.instructors), _q(conn, roles.students)
    conn.exec_driver_sql(f"REVOKE ALL ON {name} FROM {instructors}, {students}")
    for policy in (POLICY_OWN, POLICY_READ_ALL, POLICY_LOGIN):
        conn.exec_driver_sql(f"DROP POLICY IF EXISTS {policy} ON {name}")
    if table == "profiles" or per_profile:
        mine = ("name = (SELECT profile FROM class_logins WHERE login = current_user)"
                if table == "profiles" else f"profile_id = {_own_profile_sql()}")
        conn.exec_driver_sql(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {name} "
                             f"TO {instructors}, {students}")
        conn.exec_driver_sql(f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY")
        conn.exec_driver_sql(f"CREATE POLICY {POLICY_OWN} ON {name} FOR ALL "
                             f"TO {instructors}, {students} USING ({mine}) WITH CHECK ({mine})")
        conn.exec_driver_sql(f"CREATE POLICY {POLICY_READ_ALL} ON {name} FOR SELECT "
                             f"TO {instructors} USING (true)")
    elif table == LOGINS_TABLE:
        conn.exec_driver_sql(f"GRANT SELECT ON {name} TO {instructors}, {students}")
        conn.exec_driver_sql(f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY")
        conn.exec_driver_sql(f"CREATE POLICY {POLICY_LOGIN} ON {name} FOR SELECT "
                             f"TO {students} USING (login = current_user)")
        conn.exec_driver_sql(f"CREATE POLICY {POLICY_READ_ALL} ON {name} FOR SELECT "
                             f"TO {instructors} USING (true)")
    elif table in READ_ONLY_TABLES:
        conn.exec_driver_sql(f"GRANT SELECT ON {name} TO {instructors}, {students}")
    else:
        # the published decks, and any other class-wide table: everyone reads,
        # instructors write
        conn.exec_driver_sql(f"GRANT SELECT ON {name} TO {instructors}, {students}")
        conn.exec_driver_sql(f"GRANT INSERT, UPDATE, DELETE ON {name} TO {instructors}")


def login_url(url: str, login: str) -> str:
    """The database's URL for ``login``, without a password: what the owner hands out."""
    from sqlalchemy.engine import URL, make_url

    parsed = make_url(url)
    return URL.create(parsed.drivername, username=login, host=parsed.host, port=parsed.port,
                      database=parsed.database, query=parsed.query).render_as_string(
                          hide_password=False)


def class_is_set_up(engine: Engine) -> bool:
    """Whether ``setup_class`` has run on this database (its roles exist)."""
    if engine.dialect.name != "postgresql":
        return False
    with engine.connect() as conn:
        roles = roles_for(conn)
        return bool(_existing_roles(conn, [roles.instructors, roles.students]))


def add_login(engine: Engine, login: str, profile: str, password: str, *,
              instructor: bool) -> ClassRoles:
    """A new login bound to ``profile``, member of the students' (or instructors') role.

    The profile itself is created by the caller (it knows a new profile's
    settings). The password goes to the server as a quoted literal, never
    into a log.
    """
    _require_postgres(engine)
    if not LOGIN_NAME.fullmatch(login):
        raise ClassSetupError(f"{login!r} cannot be a login: use 1 to 63 lower case letters, "
                              f"digits and underscores, starting with a letter")
    with engine.begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SETUP_LOCK})
        roles = roles_for(conn)
        if not _existing_roles(conn, [roles.instructors, roles.students]):
            raise ClassSetupError("this database has no class yet: run `studyapp class setup` "
                                  "first, as the database's owner")
        _check_owner(conn)
        if _existing_roles(conn, [login]):
            raise ClassSetupError(f"a login named {login} already exists on this server "
                                  f"(logins are shared by every database there); choose "
                                  f"another name")
        bound = conn.execute(text(f"SELECT login FROM {LOGINS_TABLE} WHERE profile = :p"),
                             {"p": profile}).scalar()
        if bound is not None:
            raise ClassSetupError(f"the profile {profile!r} already belongs to the login "
                                  f"{bound}")
        group = roles.instructors if instructor else roles.students
        raw = conn.connection.driver_connection
        from psycopg import sql  # the driver quotes the password as a literal

        statement = sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE {}").format(
            sql.Identifier(login), sql.Literal(password), sql.Identifier(group))
        with raw.cursor() as cursor:  # type: ignore[union-attr]
            cursor.execute(statement)
        conn.execute(text(f"INSERT INTO {LOGINS_TABLE} (login, profile) VALUES (:l, :p)"),
                     {"l": login, "p": profile})
    return roles


__all__ = ["ClassRoles", "ClassSetupError", "Denial", "Standing", "add_login",
           "class_is_set_up", "denial", "login_profile", "login_url", "roles_for",
           "setup_class", "standing"]
