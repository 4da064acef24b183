"""A home address stated as such: "my home address is …", "我家地址：…", "Мой домашний адрес: …".

The street patterns of `nostore_address` read the layouts of Western Europe and North America. In
other countries an address is written from the city down (Chinese 市/区/路/号, Korean 시/구/로/길/동/호,
Russian г./ул./д./кв.) or with its own words (Turkish Caddesi/Sokak/No:). When the note itself says the
address is someone's home, the words after that phrase are the address if they hold a house number and
a street or locality word of some country: the span runs from there to the end of the line or sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# The phrase that says what follows is a person's home address (on the lower-cased text).
_HOME = re.compile(
    r"(?:\bmy (?:home |postal |mailing |street )?address|\bhome address|\bi live at|\bwe live at|"
    r"\bmeine? (?:privat|wohn)?adresse|\bwohnadresse|\bich wohne in|\bmon adresse|\bj'habite au|"
    r"\bmi (?:dirección|direccion|domicilio)|\bvivo en|\bil mio indirizzo|\bindirizzo di casa|\babito in|"
    r"\bminha morada|\bmeu endereço|\bmoro na|\bmijn (?:huis)?adres|\bik woon op|\bmój adres|\bmieszkam na|"
    r"\bmoje adresa|\bbydlím na|\bmin (?:hem)?adress|\bjeg bor på|\bev adres\w*|\badresim|\boturduğum|"
    r"домашний адрес|\bмой адрес|\bя живу|мешкаю|адреса проживання|"
    r"家庭住址|我家地址|我的地址|我住在|住所は|自宅の住所|うちの住所|집 주소|주소는|"
    r"כתובת (?:המגורים|הבית)|הכתובת שלי|אני גר|عنواني|عنوان منزلي|أسكن في|"
    r"διεύθυνσή μου|διεύθυνση (?:κατοικίας|του σπιτιού)|μένω στ)"
)
# Roots of which every phrase holds one: `in` tests, much cheaper than an alternation over the text.
_HINTS = (
    "addres", "adress", "adres", "wohn", "habite", "direcci", "domicil", "vivo", "indirizzo", "abito",
    "morada", "endere", "moro", "woon", "mieszk", "bydl", "bor på", "oturdu", "адрес", "живу", "мешка",
    "住", "地址",
    "주소", "כתובת", "גר", "عنوان", "أسكن", "διεύθυνσ", "μένω", "live at",
)  # fmt: skip
# Street and locality words of many countries; one must stand in the address with a house number.
_MARKER = re.compile(
    r"(?i:\b(?:via|viale|piazza|corso|street|st|road|rd|avenue|ave|lane|drive|rue|calle|avenida|rua|"
    r"ulica|ul|straat|gatan|vej|caddesi|cad|cadde|sokak|sokağı|sok|mahallesi|mah|bulvarı|no|daire|"
    r"ул|улица|пр|проспект|пер|д|дом|кв|г|вул|будинок|οδός|οδ|rehov|flat|apt|unit)\b\.?)"
    r"|[路街道弄号號巷室楼樓区區市县縣町丁番]|[로길동호구시]|רחוב|شارع|straße|strasse|gasse|weg\b"
)
_DIGIT = re.compile(r"\d")
# Addresses hold dots ("ul.", "No.", "д."), so only a line end, a clause mark or the length ends one.
_END = re.compile(r"[\n;!?(。]|$")
_LONGEST = 120
_LEAD = frozenset(" :：,-–—\t\"'«“")


def find_home_addresses(text: str, folded: str) -> Iterator[tuple[int, int]]:
    """The words after a home-address phrase, up to the end of the sentence, when they hold a house
    number and a street or locality word."""
    if not any(hint in folded for hint in _HINTS):
        return
    for phrase in _HOME.finditer(folded):
        start = phrase.end()
        while start < len(text) and text[start] in _LEAD:
            start += 1
        end_match = _END.search(text, start, min(len(text), start + _LONGEST))
        end = end_match.start() if end_match else min(len(text), start + _LONGEST)
        value = text[start:end]
        if _DIGIT.search(value) and _MARKER.search(value) and len(value.strip()) >= 6:
            yield start, end


TRIGGERS: tuple[str, ...] = ("my address: ", "我家地址：", "домашний адрес: ", "ул. 5 ", "address 12 ")
