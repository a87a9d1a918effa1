"""Pure, synchronous, deterministic Klaverjassen / Klammern rules (``docs/design.md`` §2).

Importing the package registers the Klammern variant with the round
(:func:`engine.round.register_variant`), so a round with Klammern settings finds its hooks
whichever engine module was imported first.
"""

import engine.klammern  # noqa: F401  (registers the Klammern round variant)
