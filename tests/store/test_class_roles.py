"""A class on a real PostgreSQL with roles: each thing a student must not do is refused
by the server, in one line, and the instructor's and classmates' rows stay as they were.

Each test makes its own schema, so its class roles (named after the database and the
schema) and its logins (random names) are its own; all are dropped afterwards. The
test URL's login must own the schema and have CREATEROLE, as a class's owner does.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from backends import PG_URL, fresh_pg_schema, pg_admin
from click.testing import CliRunner
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from store_answers import answer, course_deck

from studyapp.cli import main
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, record_answer
from studyapp.study import describe_failure

NOW = datetime.now(UTC)
PASSWORD = "a-long-test-password"
COURSE = course_deck(3)
ONE_CARD = """\
deck: course-kv
title: KV course, replaced
language: en
post: hbm-kv-cache
cards:
  - id: fact-0
    type: truefalse
    prompt: "Everything is true."
    answer: true
"""


@dataclass
class Class:
    """A class set up in its own schema: the owner's URL and one URL per login."""

    owner: str
    urls: dict[str, str]
    logins: dict[str, str]  # profile -> login
    home: Path

    def run(self, who: str, *args: str, lang: str = "en", stdin: str | None = None
            ) -> tuple[int, str, str]:
        url = self.owner if who == "owner" else self.urls[who]
        # the URL in the environment, as a student gets it: --db refuses a password
        result = CliRunner().invoke(main, ["--lang", lang, *args], input=stdin,
                                    env={"STUDYAPP_HOME": str(self.home / who),
                                         "STUDYAPP_DB": url})
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            result.exception
        return result.exit_code, result.stdout, result.stderr


def _login_url(url: str, login: str) -> str:
    return make_url(url).set(username=login, password=PASSWORD).render_as_string(
        hide_password=False)


def _can_create_roles() -> bool:
    assert PG_URL
    engine = create_engine(PG_URL)
    try:
        with engine.connect() as conn:
            return bool(conn.execute(text(
                "SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user"
            )).scalar())
    finally:
        engine.dispose()


def _drop_roles(names: list[str]) -> None:
    database = make_url(PG_URL or "").database
    for name in names:
        pg_admin(f"DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{name}') "
                 f"THEN EXECUTE 'REVOKE ALL ON DATABASE \"{database}\" FROM \"{name}\"'; "
                 f"EXECUTE 'DROP ROLE \"{name}\"'; END IF; END $$")


@pytest.fixture
def classroom(tmp_path: Path) -> Iterator[Class]:
    """An owner, an instructor (prof) and two students (ana, ben), ana with answers."""
    if not PG_URL:
        pytest.skip("STUDYAPP_TEST_PG is not set")
    if not _can_create_roles():
        pytest.skip("the STUDYAPP_TEST_PG login lacks CREATEROLE, which a class's owner needs")
    tag = uuid.uuid4().hex[:8]
    logins = {name: f"t{tag}_{name}" for name in ("prof", "ana", "ben")}
    roles: list[str] = []
    try:
        with fresh_pg_schema() as owner_url:
            open_store(owner_url).close()
            room = Class(owner=owner_url, urls={p: _login_url(owner_url, login)
                                                for p, login in logins.items()},
                         logins=logins, home=tmp_path)
            code, out, err = room.run("owner", "class", "setup")
            assert code == 0, err
            roles += [word.rstrip(",;") for word in out.split() if word.endswith(
                ("_instructors,", "_students;"))]
            assert len(roles) == 2, out
            for profile, login in logins.items():
                kind = "add-instructor" if profile == "prof" else "add-student"
                code, out, err = room.run("owner", "class", kind, login, "--profile", profile,
                                          "--password-stdin", stdin=PASSWORD + "\n")
                assert code == 0, err
                assert f"bound to the profile {profile}" in out
                assert PASSWORD not in out  # a password given is never echoed
            source = tmp_path / "course-kv.yaml"
            source.write_text(COURSE, encoding="utf-8")
            code, out, err = room.run("prof", "--profile", "prof", "deck", "publish",
                                      str(source))
            assert code == 0, err
            _answer_as(room.urls["ana"], "ana", ["fact-0", "fact-1"])
            _answer_as(room.urls["prof"], "prof", ["fact-2"])
            yield room
    finally:
        _drop_roles([*logins.values(), *roles])


def _answer_as(url: str, profile: str, cards: list[str]) -> None:
    """Answers recorded through the store on the login's own connection."""
    store = open_store(url)
    try:
        me = ensure_profile(store, profile, {}, NOW)
        for n, card in enumerate(cards):
            record_answer(store, me.id, answer("course-kv", card,
                                               NOW - timedelta(hours=1, minutes=n),
                                               post="hbm-kv-cache"))
    finally:
        store.close()


def _everything(owner_url: str) -> dict[str, Any]:
    """Every row the attacks could touch, read as the owner."""
    engine = create_engine(owner_url)
    try:
        with engine.connect() as conn:
            return {table: [tuple(row) for row in conn.execute(text(
                f"SELECT * FROM {table} ORDER BY 1, 2"))]
                for table in ("profiles", "card_states", "review_logs", "card_stats",
                              "published_decks")}
    finally:
        engine.dispose()


def _one_refusal(code: int, out: str, err: str, words: str) -> None:
    assert code == 1, (out, err)
    lines = err.strip().splitlines()
    assert lines == [f"studyapp: {words}"] or (
        len(lines) == 1 and lines[0].startswith(f"studyapp: {words}")), err
    assert "Traceback" not in out + err


@pytest.mark.postgres
def test_a_student_cannot_replace_the_instructors_published_deck(classroom: Class,
                                                                 tmp_path: Path) -> None:
    before = _everything(classroom.owner)
    hostile = tmp_path / "one-card.yaml"
    hostile.write_text(ONE_CARD, encoding="utf-8")
    # --replaces: the version check passes, so only the database's roles stand in the way
    code, out, err = classroom.run("ben", "--profile", "ben", "deck", "publish", str(hostile),
                                   "--replaces", "1")
    _one_refusal(code, out, err,
                 "permission denied: only the class's instructors can publish or unpublish decks")
    after = _everything(classroom.owner)
    assert after["published_decks"] == before["published_decks"]
    assert "fact-2" in after["published_decks"][0][2]  # still the instructor's three cards
    # the instructor's own publish of the same change goes through
    code, out, err = classroom.run("prof", "--profile", "prof", "deck", "publish", str(hostile),
                                   "--replaces", "1")
    assert code == 0, err
    assert "version 2 (1 cards)" in out or "version 2 (1 card)" in out, out


@pytest.mark.postgres
@pytest.mark.parametrize("action", ["--suspend", "--reset"])
def test_a_student_cannot_change_a_classmates_cards(classroom: Class, action: str) -> None:
    before = _everything(classroom.owner)
    code, out, err = classroom.run("ben", "--profile", "ana", "cards", action, "deck:course-kv")
    _one_refusal(code, out, err, "permission denied: this login studies only as the profile "
                                 "ben, not ana (use --profile ben)")
    assert _everything(classroom.owner) == before
    # the classmate's own login may do it to her own cards
    code, out, err = classroom.run("ana", "--profile", "ana", "cards", action, "deck:course-kv")
    assert code == 0, err


@pytest.mark.postgres
def test_a_student_cannot_study_as_a_classmate(classroom: Class) -> None:
    before = _everything(classroom.owner)
    code, out, err = classroom.run("ben", "--profile", "ana", "study", "--plain",
                                   stdin="1\n\n")
    _one_refusal(code, out, err, "permission denied: this login studies only as the profile "
                                 "ben")
    code, out, err = classroom.run("ben", "--profile", "ana", "stats", lang="es")
    _one_refusal(code, out, err, "permiso denegado: este usuario solo estudia con el perfil ben")
    assert _everything(classroom.owner) == before


@pytest.mark.postgres
def test_only_instructors_read_the_class_report(classroom: Class) -> None:
    code, out, err = classroom.run("ben", "--profile", "ben", "class", "report", "--json")
    _one_refusal(code, out, err, "permission denied: only the class's instructors read the "
                                 "class report")
    assert "ana" not in out
    code, out, err = classroom.run("prof", "--profile", "prof", "class", "report", "--json")
    assert code == 0, err
    assert '"ana"' in out and '"prof"' in out
    code, out, err = classroom.run("owner", "class", "report", "--json")
    assert code == 0, err
    assert '"ana"' in out


@pytest.mark.postgres
def test_raw_sql_from_a_student_sees_and_changes_nothing_of_a_classmate(
        classroom: Class) -> None:
    before = _everything(classroom.owner)
    ana_id = next(row[0] for row in before["profiles"] if row[1] == "ana")
    engine = create_engine(classroom.urls["ben"])
    try:
        with engine.connect() as conn:
            # reading: the server hands back none of another profile's rows
            for table in ("review_logs", "card_states", "card_stats"):
                assert conn.execute(text(f"SELECT count(*) FROM {table} WHERE profile_id = :p"),
                                    {"p": ana_id}).scalar() == 0, table
            assert conn.execute(text("SELECT count(*) FROM review_logs")).scalar() == 0
            assert [r[0] for r in conn.execute(text("SELECT name FROM profiles"))] == ["ben"]
            # changing: an update or delete finds nothing to change
            assert conn.execute(text("UPDATE card_states SET suspended = true")).rowcount == 0
            assert conn.execute(text("DELETE FROM review_logs")).rowcount == 0
            conn.commit()
        attacks = [
            ("UPDATE published_decks SET content = 'deck: x'", "publish or unpublish decks"),
            ("INSERT INTO card_states (profile_id, deck_id, card_key, post, state, due, "
             "created_at, reps, lapses, suspended, leech, flag) VALUES (:p, 'course-kv', "
             "'fact-9', 'hbm-kv-cache', 1, now(), now(), 0, 0, false, false, 0)",
             "only its own profile's rows"),
            ("UPDATE alembic_version SET version_num = 'x'", "changes its schema"),
            ("INSERT INTO class_logins (login, profile) VALUES (current_user, 'ana')",
             "permission denied"),
        ]
        for statement, words in attacks:
            with engine.connect() as conn, pytest.raises(DBAPIError) as caught:
                conn.execute(text(statement), {"p": ana_id})
            line = describe_failure(caught.value, "en")
            assert line is not None and words in line and "\n" not in line, line
    finally:
        engine.dispose()
    assert _everything(classroom.owner) == before


@pytest.mark.postgres
def test_a_student_studies_their_own_profile_and_setup_runs_again(classroom: Class) -> None:
    _answer_as(classroom.urls["ben"], "ben", ["fact-0"])
    code, out, err = classroom.run("ben", "--profile", "ben", "stats", "--json")
    assert code == 0, err
    assert '"reviews": 1' in out
    code, out, err = classroom.run("owner", "class", "setup")  # idempotent
    assert code == 0, err
    code, out, err = classroom.run("ben", "--profile", "ben", "stats", "--json")
    assert code == 0 and '"reviews": 1' in out, err
    code, out, err = classroom.run("owner", "class", "add-student", classroom.logins["ben"])
    _one_refusal(code, out, err, f"a login named {classroom.logins['ben']} already exists")
    code, out, err = classroom.run("owner", "class", "add-student", "Bad Name")
    _one_refusal(code, out, err, "'Bad Name' cannot be a login")
    code, out, err = classroom.run("ben", "class", "add-student", "t_nobody_at_all")
    _one_refusal(code, out, err, "only the database's owner")


@pytest.mark.postgres
def test_a_made_password_is_printed_once_and_works(classroom: Class) -> None:
    login = f"{classroom.logins['ben']}_2"
    try:
        code, out, err = classroom.run("owner", "class", "add-student", login,
                                       "--profile", "cy")
        assert code == 0, err
        password = next(line.rsplit(" ", 1)[1] for line in out.splitlines()
                        if line.startswith("password"))
        assert len(password) >= 20
        url = make_url(classroom.owner).set(username=login, password=password)
        store = open_store(url.render_as_string(hide_password=False))
        try:
            assert ensure_profile(store, "cy", {}, NOW).name == "cy"
        finally:
            store.close()
    finally:
        _drop_roles([login])


def test_setup_is_refused_on_sqlite(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--lang", "en", "class", "setup", "--db",
                                       f"sqlite:///{tmp_path / 'one.sqlite3'}"],
                                env={"STUDYAPP_HOME": str(tmp_path / "home")})
    assert result.exit_code == 1
    assert result.stderr.strip() == ("studyapp: class roles need PostgreSQL: an SQLite file is "
                                     "one learner's, with no logins to tell apart; give --db "
                                     "postgresql+psycopg://...")


@pytest.mark.postgres
def test_only_the_owner_upgrades_the_class_schema_and_the_roles_hold_after(
        classroom: Class) -> None:
    from alembic import command
    from alembic.config import Config

    import studyapp.store.database as database

    older = database.REVISIONS[-2]
    config = Config()
    config.set_main_option("script_location", str(Path(database.__file__).parent / "migrations"))
    engine = create_engine(classroom.owner)
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, older)
    finally:
        engine.dispose()
    code, out, err = classroom.run("ben", "--profile", "ben", "stats")
    _one_refusal(code, out, err, "the database")
    assert "studyapp --db URL db upgrade" in err
    code, out, err = classroom.run("ben", "db", "upgrade", "--no-backup")
    _one_refusal(code, out, err, "only the database's owner (the login that created its "
                                 "tables) can upgrade it")
    code, out, err = classroom.run("owner", "db", "upgrade", "--no-backup")
    assert code == 0, err
    assert "the class's roles and policies were laid again" in out
    code, out, err = classroom.run("ben", "--profile", "ben", "stats", "--json")
    assert code == 0, err
    code, out, err = classroom.run("ben", "--profile", "ana", "stats")
    _one_refusal(code, out, err, "permission denied: this login studies only as the profile ben")


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_app_words_a_refusal_as_the_command_line_does(lang: str) -> None:
    from psycopg import errors
    from sqlalchemy.exc import ProgrammingError

    from studyapp.i18n import t
    from studyapp.study.roles import PermissionRefused
    from studyapp.tui.screens.message import describe_error

    raw = ProgrammingError("UPDATE published_decks", {}, errors.InsufficientPrivilege(
        "permission denied for table published_decks"))
    assert describe_error(raw, lang) == (False, t("study.denied.decks", lang))
    assert describe_failure(raw, lang) == t("study.denied.decks", lang)
    rows = ProgrammingError("INSERT", {}, errors.InsufficientPrivilege(
        'new row violates row-level security policy for table "card_states"'))
    assert describe_failure(rows, lang) == t("study.denied.rows", lang)
    refused = PermissionRefused("profile", asked="ana", own="ben")
    fatal, line = describe_error(refused, lang)
    assert fatal and line == t("study.denied.profile", lang, asked="ana", own="ben")
    assert "ben" in line and "ana" in line
    other = ProgrammingError("SELECT", {}, errors.UndefinedTable('relation "x" does not exist'))
    assert describe_failure(other, lang) != t("study.denied.other", lang, detail="")
    assert "permission" not in (describe_failure(other, lang) or "")


@pytest.mark.postgres
def test_a_login_outside_the_class_reads_nothing(classroom: Class) -> None:
    login = f"{classroom.logins['ben']}_out"
    schema = str(make_url(classroom.owner).query["options"]).removeprefix("-csearch_path=")
    pg_admin(f"CREATE ROLE {login} LOGIN PASSWORD '{PASSWORD}'")
    try:
        classroom.urls["out"] = _login_url(classroom.owner, login)
        code, out, err = classroom.run("out", "--profile", "ana", "stats")
        _one_refusal(code, out, err, f"the login {login} has no access to any schema")
        pg_admin(f"GRANT USAGE ON SCHEMA {schema} TO {login}")  # as public is to every login
        code, out, err = classroom.run("out", "--profile", "ana", "stats")
        _one_refusal(code, out, err, "permission denied: this login cannot read studyapp's "
                                     "tables in")
        code, out, err = classroom.run("out", "class", "report")
        _one_refusal(code, out, err, "permission denied: this login cannot read studyapp's "
                                     "tables in")
        assert "ana" not in out
    finally:
        pg_admin(f"REVOKE ALL ON SCHEMA {schema} FROM {login}")
        _drop_roles([login])


@pytest.mark.postgres
def test_an_instructor_reads_a_students_profile_but_never_writes_it(classroom: Class) -> None:
    before = _everything(classroom.owner)
    code, out, err = classroom.run("prof", "--profile", "ana", "stats", "--json")
    assert code == 0, err
    assert '"reviews": 2' in out  # ana's two answers, read by her instructor
    for action in ("--suspend", "--reset"):
        code, out, err = classroom.run("prof", "--profile", "ana", "cards", action,
                                       "deck:course-kv")
        _one_refusal(code, out, err, "permission denied: this login reads the profile ana but "
                                     "writes only its own (prof)")
    code, out, err = classroom.run("prof", "--profile", "ana", "study", "--plain",
                                   "--deck", "course-kv", stdin="yes\n\n")
    assert "Answers will not be recorded: permission denied" in out, (out, err)
    assert _everything(classroom.owner) == before


@pytest.mark.postgres
def test_setup_refuses_a_group_role_someone_can_log_in_as(tmp_path: Path) -> None:
    from studyapp.store.roles import roles_for

    if not PG_URL:
        pytest.skip("STUDYAPP_TEST_PG is not set")
    if not _can_create_roles():
        pytest.skip("the STUDYAPP_TEST_PG login lacks CREATEROLE, which a class's owner needs")
    with fresh_pg_schema() as url:
        open_store(url).close()
        engine = create_engine(url)
        with engine.connect() as conn:
            students = roles_for(conn).students
        engine.dispose()
        pg_admin(f"CREATE ROLE {students} LOGIN PASSWORD '{PASSWORD}'")
        try:
            room = Class(owner=url, urls={}, logins={}, home=tmp_path)
            code, out, err = room.run("owner", "class", "setup")
            _one_refusal(code, out, err, f"the role {students} exists and can log in")
        finally:
            _drop_roles([students, students.replace("_students", "_instructors")])
