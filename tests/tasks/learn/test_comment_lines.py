"""tasks.learn.comment_lines: a comment's name printed inside its date line."""
from __future__ import annotations

from tasks.learn.comment_lines import learn, name_in, unsigned

CZ = ["Napsal uživatel Mordemy (bez ověření) dne 29. Červen 2009 - 10:37.",
      "Napsal uživatel Arthur Dent dne 29. Červen 2009 - 11:28.",
      "Napsal uživatel Mirek055 (bez ověření) dne 3. Duben 2009 - 19:45.",
      "Napsal uživatel Lei dne 30. Červen 2009 - 8:00."]


def test_the_name_between_the_lines_lead_and_stop_words():
    rule = learn(CZ)
    assert rule["lead"] == ["Napsal", "uživatel"] and "dne" in rule["stops"]
    assert [name_in(t, rule) for t in CZ] == ["Mordemy", "Arthur Dent", "Mirek055", "Lei"]
    en = ["Submitted by Ann (not verified) on Mon, 03/02/2009 - 10:37", "Submitted by Bob on Tue, 03/03/2009 - 11:00",
          "Submitted by Carl Smith on Tue, 03/03/2009 - 12:00"]
    assert [name_in(t, learn(en)) for t in en] == ["Ann", "Bob", "Carl Smith"]


def test_no_rule_where_the_lines_print_no_name():
    assert learn(["June 5, 2009", "June 6, 2009", "June 7, 2009"]) is None  # dates alone
    assert learn(["Posted by Ann at 5", "Posted by Ann at 6", "Posted by Ann at 7"]) is None  # one name: a label
    assert learn(CZ[:2]) is None  # too few lines
    assert name_in("Something else entirely on 3 June", learn(CZ)) == ""
    assert name_in(None, learn(CZ)) == "" and name_in(CZ[0], None) == ""


def test_a_note_after_every_name_ends_it_where_no_stop_word_does():
    """"Comment from: NAME [Visitor] · site": a line of its own, no word after every name but the
    note, which says what the commenter is; a line that runs on after the name says none."""
    lines = ["Comment from: Daniele Medri [Visitor] · http://daniele.example", "Comment from: Ikke [Member] · http://e.example",
             "Comment from: John Drinkwater [Visitor]", "Comment from: dhon [Visitor] · http://d.example"]
    rule = learn(lines)
    assert rule and rule["lead"] == ["Comment", "from:"]
    assert [name_in(t, rule) for t in lines] == ["Daniele Medri", "Ikke", "John Drinkwater", "dhon"]
    assert name_in("Comment from: someone who wrote a long line", rule) == ""  # no note, no stop: no name


def test_an_unsigned_line_and_a_name_of_digits_keep_the_lines_reading():
    """"Posted by:  at ..." (a comment its writer left unsigned) and "Posted by: 12345678 at ..."
    among nine lines (a held-out blog's post with nine comments read none): the one has the lines'
    shape and no name, so the lines still print names; the digits read as no name (a date's
    number could stand there: a name of digits read so took a comment form's fields for comments)."""
    names = ["sunwell", "Hilton", "autumnleaf", "kingfish", "dancewing", "12345678", "", "udoo", "keke"]
    lines = [f"Posted by: {n} at January {10 - i}, 2004 0{i % 9 + 1}:48 PM" for i, n in enumerate(names)]
    rule = learn(lines)
    assert rule and rule["lead"] == ["Posted", "by:"] and "at" in rule["stops"]
    assert [name_in(t, rule) for t in lines] == [n if not n.isdigit() else "" for n in names]
    assert [unsigned(t, rule) for t in lines] == [n == "" for n in names]
    assert not unsigned("Posted by: Ann at 5", None) and not unsigned("Something else at 5", rule)
