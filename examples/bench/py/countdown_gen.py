"""countdown with a Python generator as the effect: the counting loop is a
generator that yields `get` and `put` requests, and a handler loop answers
them by `send` (the closest Python has to a State effect and its handler).

Usage: python3 countdown_gen.py N   (prints 0)
Same algorithm as ../countdown.writ: each iteration asks for the state once
and, while it is not 0, sets it once; so N iterations make N puts and
N + 1 gets.
"""
import sys

GET = ("get",)


def countdown():
    # A loop, not recursion: Python has no tail calls, and the Writ
    # version's tail call runs in constant stack, like this loop.
    while True:
        i = yield GET
        if i == 0:
            return i
        yield ("put", i - 1)


def run(start):
    state = start
    program = countdown()
    request = next(program)
    try:
        while True:
            if request is GET:
                request = program.send(state)
            else:
                state = request[1]
                request = program.send(None)
    except StopIteration as done:
        return done.value


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(run(n))
