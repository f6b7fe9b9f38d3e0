"""split_authors: bylines into names, in several languages."""
import pytest

from tasks.text.names import split_authors, strip_byline_prefix


@pytest.mark.parametrize("text,lang,names", [
    ("By Jane Doe", "en", ["Jane Doe"]),
    ("Posted by Jane Doe and John Roe", "en", ["Jane Doe", "John Roe"]),
    ("par Marie Dupont et Jean Martin", "fr", ["Marie Dupont", "Jean Martin"]),
    ("von Anna Schmidt und Paul Weber", "de", ["Anna Schmidt", "Paul Weber"]),
    ("por Ana García y Luis Pérez", "es", ["Ana García", "Luis Pérez"]),
    ("di Marco Rossi e Lucia Bianchi", "it", ["Marco Rossi", "Lucia Bianchi"]),
    ("Иван Петров и Анна Смирнова", "ru", ["Иван Петров", "Анна Смирнова"]),
    ("Alice, Bob & Carol", None, ["Alice", "Bob", "Carol"]),
    ("José Ortega y Gasset", "en", ["José Ortega y Gasset"]),  # "y" splits only in Spanish
    ("Author: Jane Doe", None, ["Jane Doe"]),
    ("jane@example.com (Jane Doe)", None, ["Jane Doe"]),
    ("", None, []),
    # a rule that also selects the post's permalink line: a URL splits on "/" into no names
    ("http://blog.example.org/2018/10/24/back-end/java/collections/", None, []),
    ("Jane Doe (https://jane.example.org/about)", None, ["Jane Doe"]),
    ("Jane Doe www.example.org", None, ["Jane Doe"]),
])
def test_split_authors(text, lang, names):
    assert split_authors(text, lang) == names


def test_prefix_only_at_start():
    assert strip_byline_prefix("Written by Jane Doe") == "Jane Doe"
    assert strip_byline_prefix("Standby Mode") == "Standby Mode"
