"""fibonacci_recursive in plain Python: the n-th Fibonacci number, doubly recursive.

Usage: python3 fib.py N   (prints fib(N); fib(0) = 0, fib(1) = 1)
Same algorithm as ../fibonacci_recursive.writ.
"""
import sys


def fibonacci(n):
    if n == 0:
        return 0
    elif n == 1:
        return 1
    else:
        return fibonacci(n - 1) + fibonacci(n - 2)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(fibonacci(n))
