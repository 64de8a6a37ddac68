"""Pillow pictures: boards, cards, score charts. Pure: a view in, PNG bytes out."""
