"""Support: argument checks and the errors they raise (``_checks``), the device
(``device``), buffers shared between calls (``_buffers``) and tidy tables (``frames``).

Imports nothing of rope_core; every other group may import it."""
