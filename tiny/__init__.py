"""Training code of the tiny models (see tiny/train.py) and their shipped weights."""
