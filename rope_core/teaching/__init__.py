"""The lesson's own data: worked checks of the derivation (``lesson``), the guided
tour's answers (``tour``), the tables behind the lesson's plots (``tables``) and the
checks that tell a student what is wrong in an exercise (``exercises``).

May import every other group; none imports it."""
