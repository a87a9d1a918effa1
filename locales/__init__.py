"""The gettext catalogues, shipped as package data: ``<lang>/LC_MESSAGES/messages.po`` and the
template ``messages.pot``. No code: :mod:`bot.i18n` reads the files through
:func:`importlib.resources.files` (``files("locales")``), so they are found the same way in a
source checkout, an editable install and an installed wheel. See ``README.md`` here.
"""
