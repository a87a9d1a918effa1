"""Telegram update handlers: thin, no rules, no SQL, no literal text."""
