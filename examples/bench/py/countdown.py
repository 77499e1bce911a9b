"""countdown in plain Python: a loop that reads and writes a counter through
get/put calls on a state object (the Python stand-in for the State effect).

Usage: python3 countdown.py N   (prints 0)
Same algorithm as ../countdown.writ: each iteration does one get() and, while
the value is not 0, one put(value - 1); so N iterations do N puts and N + 1
gets.
"""
import sys


class State:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value

    def put(self, value):
        self.value = value


def countdown(state):
    # A loop, not recursion: Python has no tail calls, and the Writ version's
    # tail call runs in constant stack, like this loop.
    while True:
        i = state.get()
        if i == 0:
            return i
        state.put(i - 1)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(countdown(State(n)))
