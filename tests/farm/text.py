"""Deterministic raw material for farm blogs: words, names, titles, dates, images.

Everything is drawn from `rng(*parts)`, a `random.Random` seeded by a string, so a value
depends only on its parts (never on PYTHONHASHSEED or on what was drawn before it
elsewhere): post 37 of seed 1 is the same whether the blog has 50 or 500 posts.
"""
from __future__ import annotations

import datetime as dt
import random
import re
import struct
import unicodedata
import zlib
from html import escape

LANGS = ("en", "fr", "es", "de")


def rng(*parts) -> random.Random:
    return random.Random("|".join(map(str, parts)))


# ---------------------------------------------------------------- words

WORDS = {
    "en": """the a of and to in is it that for on with as was this by be at from or an are not have
    which you one all were can there but more their what when your been out about would into some
    them time could these other than then only its two may first also after way where over new
    garden river winter kitchen library bicycle mountain harbour lantern orchard meadow signal
    pattern window letter journey evening morning village market ferry station engine compass
    archive folder ribbon pencil teapot violin crayon marble feather thunder whisper shadow
    quietly slowly carefully nearly almost perhaps rather simply honestly certainly café naïve
    résumé façade coöperate déjà-vu jalapeño""".split(),
    "fr": """le la les un une des de du et à en pour dans sur avec par pas plus mais ou où qui que
    très été être avoir fait comme tout tous cette ces leurs notre votre aussi encore déjà
    jardin rivière hiver cuisine bibliothèque vélo montagne port lanterne verger prairie signal
    fenêtre lettre voyage soirée matin village marché gare moteur boussole archive crayon
    théière violon plume tonnerre murmure ombre doucement lentement presque peut-être plutôt
    simplement élève forêt château garçon cœur ça naïf hôtel été côte""".split(),
    "es": """el la los las un una de del y a en para por con sin sobre entre pero más muy ya
    también todo toda este esta estos año niño señor mañana jardín río invierno cocina
    biblioteca bicicleta montaña puerto linterna huerto pradera señal ventana carta viaje
    tarde pueblo mercado estación motor brújula archivo lápiz tetera violín pluma trueno
    susurro sombra despacio casi quizás bastante sencillamente corazón canción pequeño
    después según además""".split(),
    "de": """der die das ein eine und zu in ist mit auf für von nicht auch sich dem den des
    aber noch nach bei über unter schon wieder sehr immer Garten Fluss Winter Küche
    Bibliothek Fahrrad Berg Hafen Laterne Obstgarten Wiese Signal Fenster Brief Reise Abend
    Morgen Dorf Markt Bahnhof Motor Kompass Archiv Bleistift Teekanne Geige Feder Donner
    Flüstern Schatten langsam beinahe vielleicht ziemlich einfach Straße Größe Mädchen
    Bücher schön müde weiß Grüße Äpfel""".split(),
}
FLAVOUR = ["“quoted words”", "— an aside —", "…", "½", "naïve", "Zürich", "São Paulo", "Kraków",
           "Ærøskøbing", "東京", "🙂", "«guillemets»", "¿verdad?", "¡olé!", "10 %", "2 × 3", "€12"]

TITLE_NOUNS = ["Garden", "River", "Winter", "Kitchen", "Library", "Bicycle", "Mountain", "Harbour",
               "Lantern", "Orchard", "Meadow", "Signal", "Pattern", "Window", "Letter", "Journey",
               "Evening", "Village", "Market", "Ferry", "Station", "Engine", "Compass", "Archive",
               "Teapot", "Violin", "Feather", "Thunder", "Shadow", "Café", "Château", "Señal",
               "Straße", "Fjord", "Brújula", "Forêt", "Bücherei", "Niño", "Crème brûlée", "Piñata"]
TITLE_ADJ = ["Quiet", "Slow", "Careful", "Forgotten", "Little", "Northern", "Hidden", "Curious",
             "Second", "Last", "Early", "Blue", "Crooked", "Patient", "Borrowed", "Unfinished",
             "Naïve", "Über", "Petit", "Pequeño", "Schöne", "Wandering", "Restless", "Golden"]
TITLE_FORMS = ["The {a} {n}", "{a} {n}s", "On the {n} and the {n2}", "Notes from the {n}",
               "Why the {n} Matters", "A {a} {n}, Again", "{n} & {n2}", "How I Fixed the {n}",
               "{a} {n}: Part {k}", "Ten Years of {n}s", "Letters to a {a} {n}", "The {n} Problem",
               "Against the {a} {n}", "What the {n} Knew", "{n} Diaries #{k}"]

FIRST = ["Ana", "José", "Zoë", "Jürgen", "Chloé", "Mateo", "Ingrid", "Sébastien", "Lucía", "Björn",
         "Amélie", "Nuño", "Åsa", "Rich", "Humuhumu", "Priya", "Kenji", "Oluwaseun", "Małgorzata",
         "Dmitri", "Siobhán", "Thomas", "Maria", "Li", "Fatima", "Hélène", "Íñigo", "Grete"]
LAST = ["García", "Müller", "Moreau", "Núñez", "Weiß", "Lefèvre", "Okafor", "Nakamura", "Lindqvist",
        "O'Brien", "Dubois", "Fernández", "Schröder", "Kowalski", "Weng", "Trott", "Erdi", "Ibáñez",
        "Østergaard", "Novák", "Rossi", "Smith", "Castaño", "Łukasik", "Brontë", "Zhang"]
HANDLES = ["bookworm", "jdoe", "night_owl", "café_lover", "marta.k", "el_niño", "grumpy-cat", "anon",
           "pixelpusher", "fjordfan", "zoë", "tea&toast", "über_nerd", "the_real_ana", "p.lefèvre"]


def words(r: random.Random, lang: str, n: int) -> list[str]:
    own, other = WORDS[lang], WORDS[r.choice(LANGS)]
    return [r.choice(other if r.random() < 0.07 else own) for _ in range(n)]


def sentence(r: random.Random, lang: str) -> str:
    w = words(r, lang, r.randint(6, 16))
    if r.random() < 0.15:
        w.insert(r.randrange(len(w)), r.choice(FLAVOUR))
    s = " ".join(w)
    return s[0].upper() + s[1:] + r.choice(".....!?")


def person(r: random.Random) -> str:
    return f"{r.choice(FIRST)} {r.choice(LAST)}"


def title(r: random.Random) -> str:
    n, n2 = r.sample(TITLE_NOUNS, 2)
    return r.choice(TITLE_FORMS).format(a=r.choice(TITLE_ADJ), n=n, n2=n2, k=r.randint(2, 9))


def slugify(s: str, max_words: int | None = None) -> str:
    s = unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower()
    parts = re.findall(r"[a-z0-9]+", s)
    if max_words:
        parts = parts[:max_words]
    return "-".join(parts) or "post"


def esc(s: str) -> str:
    return escape(s, quote=True)


# ---------------------------------------------------------------- dates

MONTHS = {
    "en": "January February March April May June July August September October November December",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "de": "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
}
MONTHS = {k: v.split() for k, v in MONTHS.items()}
MONTHS_SHORT = {
    "en": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(),
    "fr": "janv. févr. mars avr. mai juin juil. août sept. oct. nov. déc.".split(),
    "es": "ene feb mar abr may jun jul ago sep oct nov dic".split(),
    "de": "Jan. Feb. März Apr. Mai Juni Juli Aug. Sept. Okt. Nov. Dez.".split(),
}
DAYS = {
    "en": "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split(),
    "fr": "lundi mardi mercredi jeudi vendredi samedi dimanche".split(),
    "es": "lunes martes miércoles jueves viernes sábado domingo".split(),
    "de": "Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag".split(),
}
DATE_STYLES = ("long", "weekday", "short", "numeric", "iso")


def format_date(d: dt.datetime, style: str, lang: str, with_time: bool = False) -> str:
    """A date as a blog of that language shows it ("9 de marzo de 2014", "09.03.2014"...)."""
    m, ms, day = MONTHS[lang][d.month - 1], MONTHS_SHORT[lang][d.month - 1], DAYS[lang][d.weekday()]
    D, Y = d.day, d.year
    if style == "iso":
        s = d.strftime("%Y-%m-%d")
    elif style == "numeric":
        s = {"en": f"{d.month:02d}/{D:02d}/{Y}", "de": f"{D:02d}.{d.month:02d}.{Y}"}.get(lang, f"{D:02d}/{d.month:02d}/{Y}")
    elif style == "short":
        s = {"en": f"{ms} {D}, {Y}", "de": f"{D}. {ms} {Y}"}.get(lang, f"{D} {ms} {Y}")
    elif style == "weekday":
        s = {"en": f"{day}, {m} {D}, {Y}", "fr": f"{day} {D} {m} {Y}", "es": f"{day}, {D} de {m} de {Y}",
             "de": f"{day}, {D}. {m} {Y}"}[lang]
    else:
        s = {"en": f"{m} {D}, {Y}", "fr": f"{D} {m} {Y}", "es": f"{D} de {m} de {Y}", "de": f"{D}. {m} {Y}"}[lang]
    if with_time:
        s += {"en": " at {t}", "fr": " à {t}", "es": " a las {t}", "de": " um {t} Uhr"}[lang].format(
            t=format_time(d, lang))
    return s


def format_time(d: dt.datetime, lang: str) -> str:
    if lang == "en":
        return f"{(d.hour - 1) % 12 + 1}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}"
    return f"{d.hour:02d}:{d.minute:02d}"


def rfc822(d: dt.datetime) -> str:
    from email.utils import format_datetime
    return format_datetime(d)


def iso(d: dt.datetime) -> str:
    return d.isoformat(timespec="seconds")


LABELS = {
    "en": dict(by="by", posted="Posted on", older="Older posts", newer="Newer posts", comments="Comments",
               said="said…", reply="Reply", load_more="Load more", recent="Recent posts",
               related="Related posts", archives="Archives", tags="Tags", more="Continue reading",
               leave="Leave a comment", home="Home", about="About", categories="Categories",
               older_comments="Older comments", newer_comments="Newer comments"),
    "fr": dict(by="par", posted="Publié le", older="Articles plus anciens", newer="Articles plus récents",
               comments="Commentaires", said="a dit…", reply="Répondre", load_more="Afficher plus",
               recent="Articles récents", related="Articles similaires", archives="Archives",
               tags="Étiquettes", more="Lire la suite", leave="Laisser un commentaire", home="Accueil",
               about="À propos", categories="Catégories", older_comments="Commentaires précédents",
               newer_comments="Commentaires suivants"),
    "es": dict(by="por", posted="Publicado el", older="Entradas anteriores", newer="Entradas recientes",
               comments="Comentarios", said="dijo…", reply="Responder", load_more="Cargar más",
               recent="Entradas recientes", related="Entradas relacionadas", archives="Archivo",
               tags="Etiquetas", more="Seguir leyendo", leave="Deja un comentario", home="Inicio",
               about="Acerca de", categories="Categorías", older_comments="Comentarios anteriores",
               newer_comments="Comentarios siguientes"),
    "de": dict(by="von", posted="Veröffentlicht am", older="Ältere Beiträge", newer="Neuere Beiträge",
               comments="Kommentare", said="sagte…", reply="Antworten", load_more="Mehr laden",
               recent="Neueste Beiträge", related="Ähnliche Beiträge", archives="Archiv",
               tags="Schlagwörter", more="Weiterlesen", leave="Schreibe einen Kommentar",
               home="Startseite", about="Über uns", categories="Kategorien",
               older_comments="Ältere Kommentare", newer_comments="Neuere Kommentare"),
}


# ---------------------------------------------------------------- images

def png(width: int, height: int, key: str) -> bytes:
    """A small RGB PNG (horizontal colour bands chosen by `key`)."""
    r = rng("png", key)
    bands = [bytes((r.randrange(256), r.randrange(256), r.randrange(256))) for _ in range(4)]
    raw = b"".join(b"\x00" + bands[y * 4 // height] * width for y in range(height))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


_DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]  # standard luminance DC table (T.81 K.3)


def _dc_codes() -> dict[int, tuple[int, int]]:
    codes, code, k = {}, 0, 0
    for length, count in enumerate(_DC_BITS, 1):
        for _ in range(count):
            codes[k] = (code, length)
            code, k = code + 1, k + 1
        code <<= 1
    return codes


def jpeg(width: int, height: int, key: str) -> bytes:
    """A small baseline greyscale JPEG of flat 8x8 blocks (DC-only coding; no imaging library)."""
    assert width % 8 == 0 and height % 8 == 0
    r = rng("jpeg", key)
    blocks = (width // 8) * (height // 8)
    levels = [r.randrange(16, 240) for _ in range(blocks)]
    dc = _dc_codes()
    bits: list[int] = []

    def put(value: int, n: int):
        bits.extend((value >> (n - 1 - i)) & 1 for i in range(n))

    prev = 0
    for v in levels:
        coef = 8 * (v - 128)  # DC of a flat block, quantiser 1
        diff, prev = coef - prev, coef
        size = abs(diff).bit_length()
        put(*dc[size])
        if size:
            put(diff if diff > 0 else diff + (1 << size) - 1, size)
        put(0, 1)  # EOB: the only symbol of our one-code AC table
    bits.extend([1] * (-len(bits) % 8))
    scan = bytearray()
    for i in range(0, len(bits), 8):
        b = int("".join(map(str, bits[i:i + 8])), 2)
        scan += bytes([b, 0]) if b == 0xFF else bytes([b])

    def seg(marker: int, data: bytes) -> bytes:
        return struct.pack(">BBH", 0xFF, marker, len(data) + 2) + data

    return (b"\xff\xd8"
            + seg(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
            + seg(0xFE, f"blogharvest farm {key}".encode())
            + seg(0xDB, b"\x00" + b"\x01" * 64)
            + seg(0xC0, struct.pack(">BHHBBBB", 8, height, width, 1, 1, 0x11, 0))
            + seg(0xC4, b"\x00" + bytes(_DC_BITS) + bytes(range(12)))
            + seg(0xC4, b"\x10" + bytes([1] + [0] * 15) + b"\x00")
            + seg(0xDA, b"\x01\x01\x00\x00\x3f\x00")
            + bytes(scan) + b"\xff\xd9")
