import os


def add(a, b):
    return a + b


def unused_variable():
    result = 42
    return None
