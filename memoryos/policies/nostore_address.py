"""Home addresses: a street with its house number and, on the same line, a postal code.

Either half alone is everywhere in agent notes ("the office on Main Street", "ZIP 10115", "port 8080"),
so the finder asks for both within one line: a street written as the country writes it (number before
"rue", after "Hauptstraße", after "Via Garibaldi", "127 Elm Street") and then, within 60 characters, a
postal code of a known shape. Japanese addresses are written prefecture-city-block without spaces and
have their own pattern. The span runs from the street to the end of the postal code.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

from memoryos.policies.nostore_address_home import find_home_addresses

_NAME = r"[A-ZÀ-Þ][\wÀ-ÿ'’.\-]*"  # a capitalised word of a street or city name
_LINK = r"(?:(?:de|del|de la|di|della|dei|degli|delle|dello|do|da|dos|das|du|des|van|von|der)\s)?"
_STREET_SUFFIX = (
    r"stra(?:ss|ß)e|str\.|gasse|weg|platz|allee|damm|ufer|chaussee|straat|gracht|laan|plein|kade|"
    r"singel|dijk|steeg|vej|gade|gatan|vägen|veien"
)
_NUMBER_FIRST = r"rue|avenue|av\.|boulevard|bd|place|chemin|allée|impasse|quai|cours"  # 8 rue de ...
_NAME_FIRST = (  # capitalised, as street names are written: "via" alone is an English word
    r"Rue|Avenue|Boulevard|Place|Chemin|Calle|C/|Avenida|Avda\.|Plaza|Paseo|Carrer|Camino|Ronda|Via|"
    r"Viale|Piazza|Corso|Largo|Vicolo|Rua|Travessa|Praça|Alameda|Ulica|Ul\.|ul\.|al\.|Aleja"
)
_STREET_AFTER = (
    r"street|st\.?|avenue|ave\.?|road|rd\.?|boulevard|blvd\.?|lane|ln\.?|drive|dr\.?|court|ct\.?|way|"
    r"place|pl\.?|terrace|close|crescent|cres\.?|square|parkway|pkwy\.?|highway|hwy\.?"
)
_HOUSE = r"\d{1,4}(?:[A-Za-z]|[-/]\w{1,4}|\s?bis|\s?ter)?"
# A flat after the house number: "Storgatan 52 lgh 1201", "Rua das Flores, 240, apto 12", "Apt 4B".
_FLAT = (
    r"(?:,?\s(?i:lgh|apt\.?|apto\.?|apartment|flat|unit|whg\.?|wohnung|app\.?|appt\.?|m\.|bus)\s?\w{1,5})?"
)
_STREET = (
    rf"(?:{_NAME}(?i:{_STREET_SUFFIX})\s{_HOUSE}"  # Hauptstraße 39, Keizersgracht 40-II
    rf"|{_HOUSE},?\s(?i:{_NUMBER_FIRST})\s[^\n,\d]{{2,40}}"  # 8 rue de la République
    rf"|(?:{_NAME_FIRST})\s{_LINK}{_NAME}(?:\s{_LINK}{_NAME}){{0,3}},?\s{_HOUSE}"  # Via Garibaldi 26
    rf"|{_HOUSE}\s(?:{_NAME}\s){{1,3}}(?i:{_STREET_AFTER})(?!\w))"  # 127 Elm Street
    rf"{_FLAT}"
)
# Addresses are written "street number, postal code city": the comma and the city after the code keep
# years and counts ("Spring 2024, 10000 users" has no street) from passing for an address.
_POSTCODE = (
    rf"(?<!\w)(?:\d{{5}}\s{_NAME}"  # DE FR ES IT
    rf"|\d{{4}}\s?[A-Z]{{2}}\s{_NAME}"  # NL
    rf"|\d{{4}}\s{_NAME}"  # AT BE CH DK NO
    r"|[A-Z]{2}\s\d{5}(?:-\d{4})?"  # US state and ZIP
    r"|[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}"  # UK
    r"|[A-Z]{2}\s[A-Z]\d[A-Z]\s?\d[A-Z]\d"  # CA province and postal code
    r"|(?:NSW|VIC|QLD|TAS|ACT|NT|SA|WA)\s\d{4}"  # AU state and postcode
    rf"|\d{{2}}-\d{{3}}\s{_NAME}"  # PL
    r"|\d{5}-\d{3}"  # BR CEP
    rf"|\d{{3}}\s\d{{2}}\s{_NAME})(?!\w)"  # SE
)
_POSTCODE_RE = re.compile(_POSTCODE)
# A street and the comma after it; the postal code must follow within `_GAP` characters of that line.
_STREET_COMMA = re.compile(rf"{_STREET},")
_WINDOW = 140  # characters before a postal code in which its street must start
_GAP = 60  # characters between the street's comma and the postal code
_JAPANESE = re.compile(
    r"(?:〒\s?\d{3}-\d{4}\s?)?(?:東京都|北海道|(?:大阪|京都)府|[\u4e00-\u9fff]{2,3}県)"
    r"[\u3040-\u30ff\u4e00-\u9fff]{1,12}?[市区町村郡][\u3040-\u30ff\u4e00-\u9fff]{0,12}?"
    r"\d{1,4}(?:(?:[-－]|丁目|番地?|号)\d{1,4}){1,3}"
)
_HINTS = re.compile(r"\d")
# A company's published address (an imprint, a registered office, a shop's opening hours) is public:
# a legal form or an imprint word on the address's line, before it, makes it one, unless the line also
# says the address is someone's home.
_BUSINESS = re.compile(
    r"(?<![\w&])(?:GmbH|AG|SE|KG|OHG|UG|LLC|L\.L\.C\.|Inc\.?|Ltd\.?|Limited|plc|PLC|Corp\.?|Corporation|"
    r"S\.A\.S?\.?|SAS|SARL|S\.r\.l\.|Srl|SpA|S\.p\.A\.|B\.V\.|BV|N\.V\.|NV|S\.L\.|Oy|AB|ApS|A/S|"
    r"Sp\. z o\.o\.|Pty Ltd|K\.K\.|株式会社)(?![\w&])"
    r"|(?i:impressum|siège social|registered office|head ?office|headquarters|firmensitz|sede legale|"
    r"sede social|domicilio social|kantoor|opening hours|öffnungszeiten|ouvert du|horario)"
    r"|本社|本店|支社|営業所|事業所|所在地|总部|公司地址|본사"
)
_PERSONAL = re.compile(
    r"(?i:\b(?:my|our|home|i live|we live|private|privat|mein[e]?|unsere?|wohne|ma|mon|mes|j'habite|mi|vivo|"
    r"moro|minha|meu|mijn|woon|mój|moja|mitt|min|bor)\b)"
)


_COMPANY_WINDOW = 120  # characters before the street where a company's name or an imprint word counts


def _published(text: str, line: int, start: int, end: int) -> bool:
    """Whether the address's line names a company just before it and does not call it someone's home.
    Both searches are bounded windows around the address, so many addresses on one line stay linear."""
    before = max(line, start - _COMPANY_WINDOW)
    if _BUSINESS.search(text, before, start) is None:
        return False
    line_end = text.find("\n", end, end + _COMPANY_WINDOW)
    return _PERSONAL.search(text, before, line_end if line_end >= 0 else end + _COMPANY_WINDOW) is None


class _Streets:
    """Streets followed by a comma, found in one forward pass over the text however many postal
    codes there are: searching each code's window anew tried every position of it once per code, and
    codes every dozen characters ("Aadhaar 2345 Aadhaar 2345 ...") made that ten passes and 5 s over
    64 KiB. Only the parts of the text in some code's window are ever searched."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.scanned = 0
        self.starts: list[int] = []
        self.commas: list[int] = []

    def _scan(self, start: int, stop: int) -> None:
        for street in _STREET_COMMA.finditer(self.text, max(start, self.scanned), stop):
            self.starts.append(street.start())
            self.commas.append(street.end() - 1)
        self.scanned = max(self.scanned, stop)

    def before(self, window_start: int, code_start: int) -> int | None:
        """The start of the first street in [window_start, code_start) whose comma is at most `_GAP`
        characters before the code, on its line; None when there is none."""
        if self.text.find(",", max(window_start, code_start - _GAP - 1), code_start) < 0:
            return None  # no comma close enough: no street can qualify, and nothing is searched
        self._scan(window_start, code_start)
        for index in range(bisect_left(self.starts, window_start), len(self.starts)):
            comma = self.commas[index]
            if comma >= code_start:
                break
            if code_start - comma - 1 <= _GAP:
                return self.starts[index]
        return None


def find_addresses(text: str) -> Iterator[tuple[int, int]]:
    """Postal codes first (rare and cheap to find), then a street in the short window before each:
    searching for streets everywhere would try a capitalised word at every position of the text."""
    if not _HINTS.search(text):
        return
    streets = _Streets(text)
    for code in _POSTCODE_RE.finditer(text):
        line = text.rfind("\n", 0, code.start()) + 1
        start = streets.before(max(line, code.start() - _WINDOW), code.start())
        if start is not None and not _published(text, line, start, code.end()):
            yield start, code.end()
    if any("\u4e00" <= char <= "\u9fff" for char in text):
        for match in _JAPANESE.finditer(text):
            start, end = match.span()
            if not _published(text, text.rfind("\n", 0, start) + 1, start, end):
                yield start, end
    yield from find_home_addresses(text, text.lower())
