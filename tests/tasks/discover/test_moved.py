"""tasks/discover/moved.py: a feed written before the blog moved names its posts at the old address."""
from tasks.discover.moved import moved_prefix, rehome

NEW = "http://127.0.0.1:9/ltnm/"
OLD = "http://www.yama-kei.org/local_train_nakameguro/"
SLUGS = ["2010/06/post_153.html", "2010/07/post_154.html", "2010/07/specialized_bg.html", "2010/06/2stage.html"]


def _ours(u: str) -> bool:
    return u.startswith("http://127.0.0.1:9/")


def test_entries_ending_as_the_home_pages_links_by_one_change_are_the_blogs():
    """A Movable Type blog moved host and folder; its feed still names the old ones (a new
    held-out blog was learned without its feed: title, author and date 0)."""
    links = [NEW + s for s in SLUGS[:3]] + [NEW + "archives.html", "http://other.example/x.html"]
    change = moved_prefix([OLD + s for s in SLUGS], links, _ours)
    assert change == (OLD.rstrip("/"), NEW.rstrip("/"))
    assert rehome(OLD + SLUGS[3], change) == NEW + SLUGS[3]  # an entry the home page does not list
    assert rehome("http://elsewhere.example/a.html", change) == "http://elsewhere.example/a.html"
    assert rehome(None, change) is None and rehome(OLD + "x", None) == OLD + "x"


def test_too_few_or_disagreeing_matches_move_nothing():
    links = [NEW + s for s in SLUGS]
    assert moved_prefix([OLD + s for s in SLUGS[:2]], links, _ours) is None  # two: could be chance
    mixed = [OLD + SLUGS[0], "http://a.example/x/" + SLUGS[1], "http://b.example/y/" + SLUGS[2]]
    assert moved_prefix(mixed, links, _ours) is None  # three changes, one each
    assert moved_prefix([NEW + s for s in SLUGS], links, _ours) is None  # the blog's own: nothing moved
    assert moved_prefix([OLD + "index.html"] * 3, [NEW + "index.html"], _ours) is None  # a shared end too short
