"""Tests of the ``local`` extra: a real small model (llama.cpp) in-process and as a server."""
