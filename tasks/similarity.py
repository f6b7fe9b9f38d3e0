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

import sys
import unicodedata
from array import array

MASK_BITS = 1 << 17  # width of a bigram bitset
_LATIN1 = 1 << 16  # exact region: index = ord(a) | ord(b) << 8
_HASHED = MASK_BITS - _LATIN1
_MASK_BYTES = MASK_BITS // 8
_SWAP = sys.byteorder == "big"


def normalize_text(s: str | None) -> str:
    """NFKC, every run of whitespace folded to one space, ends stripped."""
    if not s:
        return ""
    if not s.isascii():
        s = unicodedata.normalize("NFKC", s)
    return " ".join(s.split())


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
    """Bit positions of all bigrams of `s` (fast path in C for Latin-1 text)."""
    if len(s) < 2:
        return set()
    try:
        raw = s.encode("latin-1")
    except UnicodeEncodeError:
        if len(s) < 64:
            return {bigram_index(s[i], s[i + 1]) for i in range(len(s) - 1)}
        return _wide_indices(s)
    # 16-bit words at even and odd offsets are exactly the pairs ord(a) | ord(b) << 8
    even = array("H", raw[: len(raw) & ~1])
    odd = array("H", raw[1: 1 + ((len(raw) - 1) & ~1)])
    if _SWAP:
        even.byteswap()
        odd.byteswap()
    out = set(even)
    out.update(odd)
    return out


def _wide_indices(s: str) -> set[int]:
    """`bigram_indices` for long text with non-Latin-1 characters, vectorised."""
    import numpy as np

    cp = np.frombuffer(s.encode("utf-32-le"), dtype="<u4").astype(np.int64)
    a, b = cp[:-1], cp[1:]
    hashed = _LATIN1 + ((a * 1000003) ^ (b * 8191) ^ (b >> 7)) % _HASHED
    idx = np.where((a < 256) & (b < 256), a | (b << 8), hashed)
    return set(np.unique(idx).tolist())


def mask_of_indices(indices) -> int:
    """A bitset with the given bit positions set."""
    n = len(indices)
    if n == 0:
        return 0
    if n <= 3:
        m = 0
        for i in indices:
            m |= 1 << i
        return m
    buf = bytearray((max(indices) >> 3) + 1)
    for i in indices:
        buf[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(buf, "little")


def bigram_mask(s: str) -> int:
    """The bigrams of `s` as a bitset of MASK_BITS bits (a Python int)."""
    return mask_of_indices(bigram_indices(s))


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
