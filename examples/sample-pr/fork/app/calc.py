import os


def add(a, b):
    return a + b


def unused_variable():
    result = 42
    return None


def divide(a, b):
    if b == None:
        return undefined_name
    return a / b
