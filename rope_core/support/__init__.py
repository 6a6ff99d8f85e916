"""Support: argument checks and the errors they raise (``_checks``), the device
(``device``), buffers shared between calls (``_buffers``), tidy tables (``frames``) and
rope_core's messages in the reader's language outside the app (``translation``).

Imports nothing of rope_core; every other group may import it."""
