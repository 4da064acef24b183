"""Index terms: the words of a text as the search index and its queries both see them (pure).

One function makes every term, so a document and a query about it always meet:

- Words of alphabetic scripts are lowercased, stemmed with the Snowball stemmer of the text's
  language, then stripped of diacritics (camped/camping -> camp, Katzen/Katze -> katz, café -> cafe).
  A document is stemmed in the one language its stopwords point to (English when none do); a
  query word is looked up under every supported language's stem, because a query of two words
  rarely says which language it is in.
- Runs of Chinese, Japanese or Korean characters have no spaces between words: they are indexed
  as single characters and overlapping character bigrams, and a query run of two or more
  characters searches its bigrams (「リリース」 -> リリ, リー, ース).
- A drawer record's key and kind are text too: `deploy:blyck` indexes `deploy` and `blyck`, and
  the key's terms count twice (a key is a title).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Protocol

import snowballstemmer

from memoryos.policies.text import STOPWORDS

# Han, Hiragana, Katakana (with the prolonged-sound mark), Hangul syllables and jamo, CJK
# compatibility ideographs, and the iteration mark 々.
_CJK = "\u3005\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\u1100-\u11ff\uac00-\ud7af\uf900-\ufaff"
_LETTERS = rf"(?:(?![{_CJK}])[^\W_])+"
_TOKEN = re.compile(rf"[{_CJK}]+|{_LETTERS}(?:'{_LETTERS})*")  # apostrophes inside words: brother's
_IS_CJK = re.compile(rf"[{_CJK}]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_GREEK = re.compile(r"[\u0370-\u03ff]")

# A handful of each language's commonest function words: enough to tell which stemmer a text needs.
LANGUAGE_STOPWORDS: dict[str, frozenset[str]] = {
    "english": frozenset(STOPWORDS),
    "german": frozenset("der die das und ist nicht ich wir sie ein eine mit auf für den dem zu von".split()),
    "french": frozenset("le la les et est une des du que qui pour dans pas je nous vous avec sur".split()),
    "spanish": frozenset("el los las y es una del que en para por con no yo nosotros pero muy".split()),
    "italian": frozenset("il lo gli e è una della che di per con non io noi sono nel alla".split()),
    "portuguese": frozenset("o os as e é uma do da que em para com não eu nós mas muito".split()),
    "dutch": frozenset("de het een en is niet ik wij zij van met op voor dat die maar".split()),
}
LATIN_LANGUAGES = tuple(LANGUAGE_STOPWORDS)
KEY_WEIGHT = 2  # a key's terms count this many times each


class _Stemmer(Protocol):
    def stemWord(self, word: str) -> str: ...


@cache
def _stemmer(language: str) -> _Stemmer:
    stemmer: _Stemmer = snowballstemmer.stemmer(language)
    return stemmer


@lru_cache(maxsize=200_000)
def stem(word: str, language: str) -> str:
    """One lowercased word's term in `language` (cached: vocabularies are Zipfian). English's
    stemmer knows its apostrophes (brother's -> brother); elsewhere a short elided word before
    one goes (l'école -> école, dell'anno -> anno) and a clitic after a long one does (Peter's)."""
    if "'" in word and language != "english":
        head, _, tail = word.rpartition("'")
        word = tail if len(head) <= 4 else head
    stemmed: str = _stemmer(language).stemWord(word)
    return _plain(stemmed)


def _plain(word: str) -> str:
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    # NFKD also unfolds compatibility forms (ligatures, full-width letters), spaces included.
    return "".join(c for c in decomposed if not unicodedata.combining(c) and not c.isspace())


def words(text: str) -> list[str]:
    """The lowercased word and CJK-run tokens of a text, in order."""
    return [w.lower() for w in _TOKEN.findall(text.replace("\u2019", "'"))]


def language_of(tokens: Iterable[str]) -> str:
    """The Snowball language whose stopwords the text uses most; English on a tie or none."""
    counts = Counter(lang for t in tokens for lang in LATIN_LANGUAGES if t in LANGUAGE_STOPWORDS[lang])
    best = max(LATIN_LANGUAGES, key=lambda lang: (counts[lang], lang == "english"))
    return best if counts[best] > counts["english"] else "english"


def _script_language(word: str, latin: str) -> str | None:
    if _CYRILLIC.search(word):
        return "russian"
    if _GREEK.search(word):
        return "greek"
    return latin if word.replace("'", "").isalpha() else None  # digits and mixed tokens stay as they are


def _cjk_grams(run: str, *, unigrams: bool) -> list[str]:
    grams = [run[i : i + 2] for i in range(len(run) - 1)]
    if unigrams or len(run) == 1:
        grams.extend(run)
    return grams


def _document_terms(text: str) -> list[str]:
    tokens = words(text)
    latin = language_of(tokens)
    terms: list[str] = []
    for token in tokens:
        if _IS_CJK.match(token):
            terms.extend(_cjk_grams(token, unigrams=True))
            continue
        language = _script_language(token, latin)
        terms.append(_plain(token) if language is None else stem(token, language))
    return [t for t in terms if t]


def index_terms(body: str, key: str | None = None, kind: str | None = None) -> Counter[str]:
    """Term frequencies of one stored unit: its body, its key (weighted) and its kind."""
    counts = Counter(_document_terms(body))
    if key:
        for term in _document_terms(key):
            counts[term] += KEY_WEIGHT
    if kind:
        counts.update(_document_terms(kind))
    return counts


def query_words(query: str) -> list[tuple[str, ...]]:
    """The query's distinct words, in order, each as the terms it may be indexed under.

    Stopwords are dropped unless nothing else is left; a CJK run becomes one word per bigram."""
    tokens = list(dict.fromkeys(words(query)))
    meaningful = [t for t in tokens if t not in STOPWORDS]
    found: list[tuple[str, ...]] = []
    for token in meaningful or tokens:
        if _IS_CJK.match(token):
            found.extend((gram,) for gram in _cjk_grams(token, unigrams=False))
        elif variants := tuple(v for v in _variants(token) if v):
            found.append(variants)
    return list(dict.fromkeys(found))


def _variants(token: str) -> tuple[str, ...]:
    if _script_language(token, "english") is None:
        return (_plain(token),)
    if _CYRILLIC.search(token) or _GREEK.search(token):
        return (stem(token, _script_language(token, "english") or "english"),)
    return tuple(dict.fromkeys(stem(token, language) for language in LATIN_LANGUAGES))
