"""fib and countdown in Lua through lupa (pip install lupa), for
bench.py: prints `NAME SECONDS RESULT` lines, timed inside the process
(so without start-up), best of RUNS.

Usage: python3 lua.py FIB_N COUNTDOWN_N RUNS
Same algorithms as ../fibonacci_recursive.writ and py/countdown.py: a
recursive fib, and a loop reading and writing a counter through get/put
functions on a state table.
"""
import sys
import time

import lupa

LUA = """
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end
local function countdown(n)
  local state = { value = n }
  local function get() return state.value end
  local function put(v) state.value = v end
  while true do
    local i = get()
    if i == 0 then return i end
    put(i - 1)
  end
end
return fib, countdown
"""


def best(f, arg, runs):
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = f(arg)
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    fib_n, cd_n, runs = (int(a) for a in sys.argv[1:4])
    lua = lupa.LuaRuntime()
    fib, countdown = lua.execute(LUA)
    version = lua.eval("_VERSION")
    t, r = best(fib, fib_n, runs)
    print("%s fib(%d) %.6f %s" % (version.replace(" ", "-"), fib_n, t, r))
    t, r = best(countdown, cd_n, runs)
    print("%s countdown(%d) %.6f %s" % (version.replace(" ", "-"), cd_n, t, r))


if __name__ == "__main__":
    main()
