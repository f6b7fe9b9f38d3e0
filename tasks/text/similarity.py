"""String similarity of the BlogForever method: Sørensen-Dice over character bigrams.

Dice is insensitive to word order and to length differences (paper, Table 1), which is
what lets a feed's text find its node on the page. Two representations are given:

* plain sets of bigrams (`bigrams`, `dice`): exact, the reference;
* bitsets (`bigram_mask`, `dice_masks`): each bigram hashed to one bit of a fixed-width
  Python int, so a union is `|`, an intersection size is `(a & b).bit_count()`, and the
  cost of either is bounded by the width, not by the text (Algorithm 2 needs that).

The bitset is exact for pairs of Latin-1 characters (one bit each, the low 2**16 bits)
and hashes every other pair into the high 2**16 bits, so only non-Latin-1 text (curly
quotes, CJK, ...) can collide, and then only with other non-Latin-1 pairs.
"""
from __future__ import annotations

from collections import Counter

import unicodedata

MASK_BITS = 1 << 17  # width of a bigram bitset
_LATIN1 = 1 << 16  # exact region: index = ord(a) | ord(b) << 8
_HASHED = MASK_BITS - _LATIN1


# the compatibility characters blog text is full of, replaced by their NFKC forms (plain
# spaces and dots, which compose with nothing) so that NFKC's quick check passes on most
# texts instead of decomposing and recomposing all of them
_COMMON_COMPAT = (("\xa0", " "), ("\u2026", "..."))


def nfkc(s: str) -> str:
    """unicodedata's NFKC, the common case without its slow path."""
    if s.isascii():
        return s
    for ch, plain in _COMMON_COMPAT:
        if ch in s:
            s = s.replace(ch, plain)
    return unicodedata.normalize("NFKC", s)


def normalize_text(s: str | None) -> str:
    """NFKC, every run of whitespace folded to one space, ends stripped."""
    if not s:
        return ""
    return " ".join(nfkc(s).split())


def bigrams(s: str) -> set[str]:
    """The set of pairs of adjacent characters of `s`."""
    return {s[i:i + 2] for i in range(len(s) - 1)}


def dice(a: str, b: str) -> float:
    """Sørensen-Dice similarity 2|A∩B| / (|A|+|B|) of the bigram sets of `a` and `b`.

    Two texts without any bigram are similar (1.0) only when they are equal.
    """
    A, B = bigrams(a), bigrams(b)
    if not A and not B:
        return 1.0 if a == b else 0.0
    return 2 * len(A & B) / (len(A) + len(B))


def bigram_index(a: str, b: str) -> int:
    """Bit position of the bigram `ab` in a bitset of MASK_BITS bits."""
    oa, ob = ord(a), ord(b)
    if oa < 256 and ob < 256:
        return oa | ob << 8
    return _LATIN1 + ((oa * 1000003) ^ (ob * 8191) ^ (ob >> 7)) % _HASHED


def bigram_indices(s: str) -> set[int]:
    """Bit positions of all bigrams of `s`."""
    return {bigram_index(s[i], s[i + 1]) for i in range(len(s) - 1)}


def mask_of_indices(indices) -> int:
    """A bitset with the given bit positions set."""
    m = 0
    for i in indices:
        m |= 1 << i
    return m


_SHORT = 48  # below this many characters a Python loop beats numpy's call overhead


def bigram_mask(s: str) -> int:
    """The bigrams of `s` as a bitset of MASK_BITS bits (a Python int).

    Long text is handled by numpy in C; each character is read once.
    """
    n = len(s)
    if n < 2:
        return 0
    if n < _SHORT:
        m = 0
        for i in {bigram_index(s[i], s[i + 1]) for i in range(n - 1)}:
            m |= 1 << i
        return m
    import numpy as np

    try:
        u = np.frombuffer(s.encode("latin-1"), dtype=np.uint8).astype(np.uint32)
        idx = u[:-1] | (u[1:] << 8)
        marks = np.zeros(_LATIN1, dtype=bool)
    except UnicodeEncodeError:
        cp = np.frombuffer(s.encode("utf-32-le"), dtype="<u4")
        a, b = cp[:-1], cp[1:]
        idx = a | (b << 8)
        wide = (a > 255) | (b > 255)
        aw, bw = a[wide].astype(np.int64), b[wide].astype(np.int64)
        idx[wide] = _LATIN1 + ((aw * 1000003) ^ (bw * 8191) ^ (bw >> 7)) % _HASHED
        marks = np.zeros(MASK_BITS, dtype=bool)
    marks[idx] = True
    return int.from_bytes(np.packbits(marks, bitorder="little").tobytes(), "little")


def dice_masks(a: int, la: int, b: int, lb: int) -> float:
    """Dice of two bitsets whose sizes (popcounts) are `la` and `lb`."""
    if la + lb == 0:
        return 0.0
    return 2 * (a & b).bit_count() / (la + lb)


def dice_mask_text(a: str, b: str) -> float:
    """Dice through bitsets (equals `dice` unless two non-Latin-1 bigrams collide)."""
    ma, mb = bigram_mask(a), bigram_mask(b)
    la, lb = ma.bit_count(), mb.bit_count()
    if la + lb == 0:
        return 1.0 if a == b else 0.0
    return dice_masks(ma, la, mb, lb)


def token_f1(a: str | None, b: str | None) -> float:
    """Token F1 of two texts (normalised, case folded): 1 for two empty texts."""
    x = Counter(normalize_text(a or "").casefold().split())
    y = Counter(normalize_text(b or "").casefold().split())
    common = sum((x & y).values())
    if not common:
        return 1.0 if not x and not y else 0.0
    p, r = common / sum(y.values()), common / sum(x.values())
    return 2 * p * r / (p + r)
