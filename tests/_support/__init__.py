"""Helpers the tests share: servers, throwaway databases, synthetic histories, gathered
folders and the coding-agent cases (fixtures live in the conftest.py files)."""
