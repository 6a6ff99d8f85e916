"""The lesson's own data: worked checks of the derivation (``lesson``), the guided
tour's answers (``tour``) and the tables behind the lesson's plots (``tables``).

May import every other group; none imports it."""
