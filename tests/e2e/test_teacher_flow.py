"""A teacher in a real browser: a class, pasted names, the sign-in sheet, levels, tables, a game."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from classgames.models import ClassSession
from classrooms.models import Classroom, LevelChange, Student
from games.models import Game
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"


def test_a_teacher_sets_up_a_class_and_starts_a_class_game(page, live_server):
    school = factories.school()
    factories.teacher(school=school, username="yann", first_name="Yann", password=PASSWORD)
    base = live_server.url

    # Sign in: the home page sends a teacher to their classes.
    page.goto(base + "/login/")
    page.fill("input[name=username]", "yann")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("My classes")

    # A class.
    page.click("text=Create a class")
    page.fill("input[name=name]", "CE1 Kerjean")
    page.fill("input[name=school_year]", "2026-2027")
    page.click("button:has-text('Create the class')")
    expect(page.locator("#messages")).to_contain_text("Class “CE1 Kerjean” created")
    room = Classroom.objects.get(name="CE1 Kerjean")

    # Paste names: a duplicate is refused with a clear message and nothing is added...
    page.click("text=Add students")
    page.fill("textarea[name=names]", "Anna\nBrieuc\n\nanna\n")
    page.click("button:has-text('Add these students')")
    expect(page.locator("#paste-errors")).to_contain_text("more than once: Anna")
    assert not Student.objects.filter(classroom=room).exists()
    # ...then the corrected paste adds everyone, empty lines skipped.
    page.fill("textarea[name=names]", "Anna\n  Brieuc \n\nCécile\nDewi\n\nElouan\n")
    page.click("button:has-text('Add these students')")
    expect(page.locator("#messages")).to_contain_text("5 students added")
    expect(page.locator("table.students tbody tr")).to_have_count(5)

    # The sign-in sheet: one card per student, ready to print (no header on paper).
    page.click(".class-tabs >> text=Sign-in cards")
    expect(page.locator(".signin-card")).to_have_count(5)
    expect(page.locator(".signin-card").first).to_contain_text("Anna")
    expect(page.locator(".signin-card").first.locator(".signin-card-pics li")).to_have_count(3)
    page.evaluate(
        "() => { window.__printed = 0; window.print = () => { window.__printed += 1; }; }"
    )
    page.click("button:has-text('Print the cards')")
    assert page.evaluate("window.__printed") == 1
    page.emulate_media(media="print")
    expect(page.locator(".site-header")).to_be_hidden()
    expect(page.locator(".signin-card").last).to_be_visible()
    page.emulate_media(media="screen")

    # Levels: Cécile, Dewi and Elouan go up to 20 with four operations, in one go.
    page.click(".class-tabs >> text=Levels")
    for name in ("Cécile", "Dewi", "Elouan"):
        page.check(f"input[aria-label='{name}']")
    page.select_option("select[name=bulk_range]", "20")
    page.select_option("select[name=bulk_tier]", "2")
    page.click("button:has-text('Apply to the ticked students')")
    expect(page.locator("#messages")).to_contain_text("3 students' levels changed")
    assert sorted(
        Student.objects.filter(classroom=room, number_range=20, tier=2).values_list(
            "name", flat=True
        )
    ) == ["Cécile", "Dewi", "Elouan"]
    assert LevelChange.objects.filter(student__classroom=room).count() == 8

    # Make tables: everyone is present; the tables follow the levels and say why.
    page.click(".class-tabs >> text=Class game")
    page.click("button:has-text('Make tables')")
    tables = page.locator(".table-plan")
    expect(tables).to_have_count(2)
    expect(tables.nth(0)).to_contain_text("up to 10, + and − only")
    expect(tables.nth(1)).to_contain_text("up to 20, + − × ÷")
    # Moving Cécile to the first table lowers its rules and names her (HTMX, no reload).
    page.select_option("select[aria-label='Table of Cécile']", "1")
    expect(tables.nth(0)).to_contain_text("Cécile")
    expect(page.locator(".table-plan").nth(1)).to_contain_text(
        "everyone at this table has this level"
    )
    # One computer player joins the second table.
    page.select_option("select[name=bots_2]", "1")
    expect(page.locator(".table-plan").nth(1)).to_contain_text("3 players")
    page.click("button:has-text('Start the games')")

    # The live class view: every table, whose turn, the cards on the table.
    expect(page).to_have_url(re.compile(r"/teacher/class-games/\d+/$"))
    expect(page.locator(".live-table")).to_have_count(2)
    expect(page.locator(".live-table").first).to_contain_text("Anna's turn")
    expect(page.locator(".live-table").first.locator(".mini-card")).to_have_count(3)
    session = ClassSession.objects.get(classroom=room)
    assert sorted(session.games.values_list("status", flat=True)) == ["running", "running"]
    assert (
        Game.objects.get(class_table__session=session, label="2").seats.filter(bot="medium").count()
        == 1
    )

    # Pause every table from the live view.
    page.click("button:has-text('Pause all tables')")
    expect(page.locator(".live-table").first).to_contain_text("Paused")
    assert set(session.games.values_list("status", flat=True)) == {"paused"}
