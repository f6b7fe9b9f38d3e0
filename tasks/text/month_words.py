"""Month names of languages beyond en/fr/es/de (tasks.text.dates), as pages print them.

Taken from dateparser's translation data (full names and their declined forms, "lutego",
"února", "listopadzie"; four letters at least, so that no abbreviation reads a common word
as a month; a spelling two languages give different months, such as listopad, left out),
so that a date line in Polish or Turkish parses on the fast path without dateparser, which
would need the page's language and a second per call. Regenerate with
`python -m tasks.text.month_words` (prints the table).
"""
from __future__ import annotations

LANGUAGES = ("it", "pt", "nl", "pl", "sv", "da", "nb", "fi", "cs", "sk", "ru", "uk", "tr", "hu", "ro", "ca", "hr",
             "sl", "et", "lv", "lt", "el", "id", "vi", "bg", "sr", "gl", "eu", "is", "ms", "tl", "af", "sq")

MONTH_WORDS: dict[str, int] = {
    # 1
    "djan": 1, "djanuari": 1, "enero": 1, "gener": 1, "gennaio": 1, "ianuarie": 1, "jaan": 1, "jaanuar": 1,
    "janar": 1, "janeiro": 1, "januar": 1, "januari": 1, "januarie": 1, "január": 1, "januára": 1, "janv": 1,
    "janvāris": 1, "janúar": 1, "leden": 1, "ledna": 1, "lednu": 1, "ocak": 1, "saus": 1, "sausio": 1,
    "sausis": 1, "siječanj": 1, "siječnja": 1, "siječnjem": 1, "siječnju": 1, "styczen": 1, "styczeń": 1,
    "stycznia": 1, "styczniu": 1, "tammi": 1, "tammik": 1, "tammikuu": 1, "tammikuussa": 1, "tammikuuta": 1,
    "urtarrila": 1, "xaneiro": 1, "ιανουάριος": 1, "ιανουαρίου": 1, "січень": 1, "січня": 1, "январь": 1,
    "января": 1, "януари": 1, "јануар": 1,
    # 2
    "febbraio": 2, "febr": 2, "febreiro": 2, "febrer": 2, "februar": 2, "februari": 2, "februarie": 2,
    "február": 2, "februára": 2, "februāris": 2, "febrúar": 2, "fevereiro": 2, "helmi": 2, "helmik": 2,
    "helmikuu": 2, "helmikuussa": 2, "helmikuuta": 2, "lutego": 2, "luty": 2, "lutym": 2, "otsaila": 2,
    "pebrero": 2, "pebruari": 2, "shkurt": 2, "vasario": 2, "vasaris": 2, "veebr": 2, "veebruar": 2,
    "velj": 2, "veljača": 2, "veljače": 2, "veljači": 2, "veljačom": 2, "únor": 2, "února": 2, "únoru": 2,
    "şubat": 2, "φεβρουάριος": 2, "φεβρουαρίου": 2, "лютий": 2, "лютого": 2, "фебруар": 2, "февр": 2,
    "февраль": 2, "февраля": 2, "февруари": 2,
    # 3
    "březen": 3, "března": 3, "březnu": 3, "kovas": 3, "kovo": 3, "maalis": 3, "maalisk": 3, "maaliskuu": 3,
    "maaliskuussa": 3, "maaliskuuta": 3, "maart": 3, "marca": 3, "marcu": 3, "marec": 3, "maret": 3,
    "mars": 3, "marso": 3, "mart": 3, "martie": 3, "marts": 3, "martxoa": 3, "marzec": 3, "marzo": 3,
    "març": 3, "março": 3, "márc": 3, "március": 3, "märts": 3, "ožujak": 3, "ožujka": 3, "ožujkom": 3,
    "ožujku": 3, "μάρτιος": 3, "μαρτίου": 3, "берез": 3, "березень": 3, "березня": 3, "март": 3, "марта": 3,
    # 4
    "abril": 4, "apirila": 4, "april": 4, "aprile": 4, "aprilie": 4, "aprill": 4, "apríl": 4, "apríla": 4,
    "aprīlis": 4, "balandis": 4, "balandžio": 4, "duben": 4, "dubna": 4, "dubnu": 4, "huhti": 4, "huhtik": 4,
    "huhtikuu": 4, "huhtikuussa": 4, "huhtikuuta": 4, "kwie": 4, "kwiecien": 4, "kwiecień": 4, "kwietnia": 4,
    "kwietniu": 4, "nisan": 4, "prill": 4, "travanj": 4, "travnja": 4, "travnjem": 4, "travnju": 4,
    "április": 4, "απρίλιος": 4, "απριλίου": 4, "апрель": 4, "апреля": 4, "април": 4, "квіт": 4, "квітень": 4,
    "квітня": 4,
    # 5
    "gegužė": 5, "gegužės": 5, "květen": 5, "května": 5, "květnu": 5, "maggio": 5, "maiatza": 5, "maig": 5,
    "maijs": 5, "maio": 5, "maja": 5, "maju": 5, "mayo": 5, "mayıs": 5, "mája": 5, "május": 5, "svibanj": 5,
    "svibnja": 5, "svibnjem": 5, "svibnju": 5, "touko": 5, "toukok": 5, "toukokuu": 5, "toukokuussa": 5,
    "toukokuuta": 5, "μάιος": 5, "μαΐου": 5, "трав": 5, "травень": 5, "травня": 5,
    # 6
    "birž": 6, "birželio": 6, "birželis": 6, "czerwca": 6, "czerwcu": 6, "czerwiec": 6, "djuni": 6,
    "ekaina": 6, "giugno": 6, "haziran": 6, "hunyo": 6, "iunie": 6, "junho": 6, "juni": 6, "junie": 6,
    "junij": 6, "juny": 6, "juuni": 6, "júna": 6, "június": 6, "júní": 6, "jūnijs": 6, "kesä": 6, "kesäk": 6,
    "kesäkuu": 6, "kesäkuussa": 6, "kesäkuuta": 6, "lipanj": 6, "lipnja": 6, "lipnjem": 6, "lipnju": 6,
    "qershor": 6, "xuño": 6, "červen": 6, "června": 6, "červnu": 6, "ιουν": 6, "ιουνίου": 6, "ιούν": 6,
    "ιούνιος": 6, "июнь": 6, "июня": 6, "черв": 6, "червень": 6, "червня": 6,
    # 7
    "djuli": 7, "heinä": 7, "heinäk": 7, "heinäkuu": 7, "heinäkuussa": 7, "heinäkuuta": 7, "hulyo": 7,
    "iulie": 7, "julai": 7, "julho": 7, "juli": 7, "julie": 7, "julij": 7, "juliol": 7, "juuli": 7, "júla": 7,
    "július": 7, "júlí": 7, "jūlijs": 7, "korr": 7, "korrik": 7, "liep": 7, "liepa": 7, "liepos": 7,
    "lipca": 7, "lipcu": 7, "lipiec": 7, "luglio": 7, "srpanj": 7, "srpnja": 7, "srpnjem": 7, "srpnju": 7,
    "temmuz": 7, "uztaila": 7, "xullo": 7, "července": 7, "červenci": 7, "červenec": 7, "ιουλ": 7,
    "ιουλίου": 7, "ιούλ": 7, "ιούλιος": 7, "июль": 7, "июля": 7, "липень": 7, "липня": 7,
    # 8
    "abuztua": 8, "agost": 8, "agosto": 8, "agustus": 8, "august": 8, "augusta": 8, "augusti": 8,
    "augusts": 8, "augustus": 8, "augusztus": 8, "avgust": 8, "ağustos": 8, "elok": 8, "elokuu": 8,
    "elokuussa": 8, "elokuuta": 8, "gush": 8, "gusht": 8, "kolovoz": 8, "kolovoza": 8, "kolovozom": 8,
    "kolovozu": 8, "ogos": 8, "rugp": 8, "rugpjūtis": 8, "rugpjūčio": 8, "sierpien": 8, "sierpień": 8,
    "sierpnia": 8, "sierpniu": 8, "srpen": 8, "srpna": 8, "srpnu": 8, "viii": 8, "ágúst": 8, "αυγούστου": 8,
    "αύγουστος": 8, "август": 8, "августа": 8, "серп": 8, "серпень": 8, "серпня": 8,
    # 9
    "eylül": 9, "iraila": 9, "rugs": 9, "rugsėjis": 9, "rugsėjo": 9, "rujan": 9, "rujna": 9, "rujnom": 9,
    "rujnu": 9, "sept": 9, "september": 9, "septembra": 9, "septembrie": 9, "septembris": 9, "septembro": 9,
    "setembre": 9, "setembro": 9, "settembre": 9, "setyembre": 9, "shtator": 9, "syys": 9, "syysk": 9,
    "syyskuu": 9, "syyskuussa": 9, "syyskuuta": 9, "szept": 9, "szeptember": 9, "wrzesien": 9, "wrzesień": 9,
    "wrzesnia": 9, "wrzesniu": 9, "września": 9, "wrześniu": 9, "září": 9, "σεπτέμβριος": 9, "σεπτεμβρίου": 9,
    "верес": 9, "вересень": 9, "вересня": 9, "сент": 9, "сентябрь": 9, "сентября": 9, "септ": 9,
    "септембар": 9, "септември": 9, "септм": 9,
    # 10
    "ekim": 10, "listopadom": 10, "loka": 10, "lokak": 10, "lokakuu": 10, "lokakuussa": 10, "lokakuuta": 10,
    "octombrie": 10, "octubre": 10, "oktober": 10, "oktobris": 10, "oktoober": 10, "oktubre": 10,
    "október": 10, "októbra": 10, "ottobre": 10, "outubro": 10, "pazdziernik": 10, "pazdziernika": 10,
    "pazdzierniku": 10, "październik": 10, "października": 10, "październiku": 10, "spal": 10, "spalio": 10,
    "spalis": 10, "tetor": 10, "urria": 10, "říjen": 10, "října": 10, "říjnu": 10, "οκτωβρίου": 10,
    "οκτώβριος": 10, "жовт": 10, "жовтень": 10, "жовтня": 10, "октобар": 10, "октомври": 10, "октябрь": 10,
    "октября": 10,
    # 11
    "azaroa": 11, "kasım": 11, "lapkr": 11, "lapkritis": 11, "lapkričio": 11, "listopadzie": 11, "marras": 11,
    "marrask": 11, "marraskuu": 11, "marraskuussa": 11, "marraskuuta": 11, "nobyembre": 11, "noiem": 11,
    "noiembrie": 11, "nopember": 11, "november": 11, "novembra": 11, "novembre": 11, "novembris": 11,
    "novembro": 11, "nëntor": 11, "nóvember": 11, "studeni": 11, "studenim": 11, "studenog": 11,
    "studenoga": 11, "studenom": 11, "studenome": 11, "studenomu": 11, "νοέμβριος": 11, "νοεμβρίου": 11,
    "лист": 11, "листоп": 11, "листопад": 11, "листопада": 11, "новембар": 11, "ноември": 11, "нояб": 11,
    "ноябрь": 11, "ноября": 11,
    # 12
    "abendua": 12, "aralık": 12, "december": 12, "decembra": 12, "decembrie": 12, "decembris": 12,
    "decembro": 12, "desember": 12, "desembre": 12, "dets": 12, "detsember": 12, "dezembro": 12,
    "dhjetor": 12, "dicembre": 12, "disember": 12, "disyembre": 12, "grudnia": 12, "grudniu": 12,
    "grudzien": 12, "grudzień": 12, "gruod": 12, "gruodis": 12, "gruodžio": 12, "joulu": 12, "jouluk": 12,
    "joulukuu": 12, "joulukuussa": 12, "joulukuuta": 12, "prosinac": 12, "prosinca": 12, "prosince": 12,
    "prosincem": 12, "prosinci": 12, "prosincu": 12, "prosinec": 12, "δεκέμβριος": 12, "δεκεμβρίου": 12,
    "груд": 12, "грудень": 12, "грудня": 12, "декабрь": 12, "декабря": 12, "декември": 12, "децембар": 12,
}


def _generate() -> dict[str, int]:
    from importlib import import_module

    names = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
             "october", "november", "december"]
    words: dict[str, int] = {}
    clash: set[str] = set()
    for lang in LANGUAGES:
        info = import_module(f"dateparser.data.date_translation_data.{lang}").info
        for month, key in enumerate(names, 1):
            for w in info.get(key, []):
                w = w.lower().strip(".")
                if len(w) >= 4 and w.isalpha():
                    if words.setdefault(w, month) != month:
                        clash.add(w)
    return {w: m for w, m in sorted(words.items()) if w not in clash}


if __name__ == "__main__":  # pragma: no cover
    print(_generate())
