"""Who wants to hear of a table that needs a player (migration 9): the members of a group who
said ``/notify`` there, and when each person was last sent such a message (at most one an
interval). Written once for both backends over the backend's transactions, like
:mod:`storage.stats_sql`; see :class:`storage.repository.Repository` for what each method
promises."""

from __future__ import annotations

from storage.rows import check_int64
from storage.stats_sql import StatsStore


class AlertStore(StatsStore):
    """The repository methods of migration 9 (both backends inherit them)."""

    async def set_table_alert(self, chat_id: int, user_id: int, on: bool, *, now: float) -> bool:
        """See :meth:`Repository.set_table_alert`."""
        check_int64(chat_id, "chat_id")
        check_int64(user_id, "user_id")
        async with self._stats(write=True) as db:
            if on:
                return (
                    await db.run(
                        "INSERT INTO table_alerts (chat_id, user_id, created_at) "
                        "VALUES (?, ?, ?) ON CONFLICT (chat_id, user_id) DO NOTHING",
                        (chat_id, user_id, now),
                    )
                    > 0
                )
            return (
                await db.run(
                    "DELETE FROM table_alerts WHERE chat_id = ? AND user_id = ?",
                    (chat_id, user_id),
                )
                > 0
            )

    async def table_alert_users(self, chat_id: int) -> list[int]:
        """See :meth:`Repository.table_alert_users`."""
        async with self._stats(write=False) as db:
            rows = await db.rows(
                "SELECT user_id FROM table_alerts WHERE chat_id = ? ORDER BY user_id", (chat_id,)
            )
        return [int(r[0]) for r in rows]

    async def claim_alert_send(self, user_id: int, *, now: float, every: float) -> bool:
        """See :meth:`Repository.claim_alert_send`."""
        check_int64(user_id, "user_id")
        async with self._stats(write=True) as db:
            changed = await db.run(
                "INSERT INTO alert_sends (user_id, sent_at) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET sent_at = excluded.sent_at "
                "WHERE alert_sends.sent_at <= ?",
                (user_id, now, now - every),
            )
        return changed > 0
