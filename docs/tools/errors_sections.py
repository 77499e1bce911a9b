"""The text of docs/errors.md: the introduction and one entry per code.

Read by gen_errors.py (run `python3 docs/tools/gen_errors.py` from the
repository root, after `cargo build`; it rewrites docs/errors.md). The
output blocks are not written here: the generator runs each example and
pastes what `writ check` (or `writ run`) prints.

INTRO is the text before the first code; `@@JSON_SOURCE@@` and `@@JSON@@`
in it become the JSON example's program and its real output.

Each entry of SECTIONS is a dict with:
- code: the diagnostic code; the title comes from lang/src/diagnostic.rs;
- meaning: what the code means (the first paragraphs);
- before: optional text between the meaning and the example;
- source: the example program, run as `main.writ`;
- show: optional text shown instead of `source` (when the real program
  cannot be shown, such as an invisible character or a huge file);
- files: optional {path: text, bytes, or None for a directory} written
  instead of `main.writ` = `source` (tests/errors_doc.rs writes such
  files itself, by code: E4007's `inputs.json`, E9002's directory, ...);
- cmd: optional command, "check" (the default) or "run": a "run" example
  is run with `writ run`, and the output shown is its standard output
  followed by its standard error; its fix_code must run to the end (exit
  0) with the same options;
- args: optional arguments of the command (default ["main.writ"]; the file
  comes last), and lead: the line introducing the output (default
  "`writ CMD main.writ` prints:", which does not show args); the two must
  agree, since tests/errors_doc.rs reads the command from the lead line
  (split at spaces, except inside single quotes, as a shell splits it).
  Options before the file (such as ["--grant", "Log", "main.writ"] or
  ["--limit", "fuel=1000000", "main.writ"]) also apply to the fix_code,
  which is checked as `writ CMD OPTIONS main.writ`;
- replace_out: optional [(real, shown)] replacements in the output shown;
- rc: the expected exit code (default 1; 3 for an `E4xxx` run-time error
  and 4 for an `E5xxx` limit, with cmd="run");
- extra: optional further examples, [dict(before=text, source=program)],
  each run as `main.writ` and shown with its output after the first;
- after: optional text after the examples;
- fix: the `**Fix**` paragraph, and fix_code: an optional program, shown
  after it, that must be accepted (with the options of args, if any);
- fix_after: optional text after the fix;
- not_run: true for a code that no command can produce (such as a run
  cancelled by a host): the section has only meaning, optional before, fix
  and fix_code, which is checked with `writ check` (or with `writ run`, if
  cmd is "run"). tests/errors_doc.rs must list such a code in SKIPPED.
"""

INTRO = r'''
# Diagnostics

This is the reference for every diagnostic Writ reports: one section per code,
each with what the code means, a program that produces it, the output of
`writ check` for that program (or of `writ run`, for the errors that happen
while a program runs), and how to fix it. `writ explain CODE` (for
example `writ explain E0100`) prints the section for one code; the text is
built into the `writ` binary from this file. The output shown for each
example is exactly what `writ check` or `writ run` prints for it, and the
tests of the `writ` crate check that it stays so.

### What a diagnostic contains

Every diagnostic, whether printed for a person or as JSON, has:

- a **code**, such as `E0100`. A code's meaning never changes once published,
  so tools and people can rely on it;
- a **severity**: `error` (the program is rejected) or `warning` (the program
  is accepted, but something is probably wrong);
- a **message**: one sentence that names what Writ expected and what it found
  instead, for example ``expected an expression, found `}` ``;
- **labels**: spans of the source, each with a short message. At most one
  label is *primary* (the main location) and it always comes first; the
  others are *secondary* and point at related places, such as where a
  bracket was opened. A diagnostic about a whole file (the `E9xxx` codes) has
  no labels;
- **notes**: extra facts worth knowing (a list, possibly empty);
- **help**: what to do about it, when there is something useful to say.

One run reports every independent problem it can find, not only the first:
the parser recovers at statement and item boundaries, and a mistake already
reported by an earlier stage (an unknown character, a bracket the balancer
had to close) is not reported again by a later one. Names, types and
effects (the `E1xxx`, `E2xxx` and `E3xxx` codes) are checked only in a file
that has no lexical or syntax error, so fixing those can reveal further
problems. An
expression whose type is unknown because of an error already reported
causes no further diagnostics, and at most 100 problems of names and types are reported for a file (one of
them then has a note saying how many more were found); the same holds for
lexical and syntax errors. The parser recovers from at most 1,000 syntax
errors; after that it skips the rest of each bracket (or of the file)
holding a further error, and the last diagnostic shown has a note saying
from which line. Diagnostics are
sorted by the position of their primary label.

A line longer than 2,048 bytes is not shown whole under a diagnostic: only
120 bytes either side of each label's ends (and of the line's start and
end) are, with `…` where text is left out and a note giving the line's
length; the location above it is still the line and column in the file.

### Code numbering

| Codes   | Stage                                                        |
|---------|--------------------------------------------------------------|
| `E00xx` | lexical errors (characters, literals, comments) and bracket balancing |
| `E01xx` | syntax (the parser)                                          |
| `E10xx` | names: unknown or duplicate names, types, constructors, effects and namespace members |
| `E20xx` | types: mismatches, calls, fields, operators, type annotations |
| `E21xx`, `W21xx` | patterns: missing arms, unreachable arms, patterns that may not match |
| `E3xxx`, `W3xxx` | effects and capabilities: effect rows, granted capabilities, unhandled effects, handler clauses |
| `E4xxx` | run-time errors (`writ run`): integer overflow, division by zero, `Fail` reaching the top level, internal errors |
| `E5xxx` | limits of a run (`writ run`): fuel, memory, call depth, output, time, cancellation |
| `E6xxx` | policies: a policy file that is malformed or names what the host does not have |
| `E7xxx` | tests (`writ test`): a malformed test, a test function with parameters, an expectation not met, no tests found |
| `E9xxx` | files and usage: a file that cannot be read as a Writ program |

Codes that start with `E` are errors. Codes that start with `W` are warnings:
the program is still accepted (`W2102`, `W3005`, `W3006`, `W3007` and
`W3008` are the only warnings so far).

### Human output

`writ check FILE...` prints, for each file, its diagnostics and then one
summary line: `FILE: accepted`, `FILE: accepted with N warnings`,
`FILE: rejected: N errors` (with `, N warnings` when there are some), or
`FILE: not checked` when the file could not be read; a count of one is
written in the singular (`1 error`, `1 warning`). After the summary line
of an accepted file come the inferred signatures of its top-level
functions, one per line, indented by two spaces, such as
`  fn total(prices: List[Int]) -> Int`, and then the program's manifest:
the effects its top level performs, one per line, each with the places
where one of its operations is performed, such as
`  capability Log: Log.info (read) at main.writ:4:3` for a host capability (each operation marked a `read` or an `act`, see [reads and acts](policy.md#reads-and-acts)), or
`  effect Fail: Fail.fail at main.writ:9:25` for `Fail` (an effect's
first 20 places, the rest counted). (`writ check
--syntax-only` checks only the lexical and syntax rules, the `E00xx` and
`E01xx` codes, and not names, types and effects. `writ check --grant
Http,Log` also rejects a program that needs a host capability that is not
in the list, with [E3002](#e3002-capability-not-granted).) A diagnostic with a location starts with
`[CODE] Error: message` (`[CODE] Warning: message` for a warning), then
`FILE:LINE:COLUMN` of the primary label, the source lines with the labels
drawn under them, and a `Help:` line. A diagnostic without a location
(the `E9xxx` codes) is printed as `[CODE] Error: message`, followed by an
`in FILE` line and, when there are some, `Note: ...` and `Help: ...`
lines. Output is coloured only when
standard output is a terminal and the `NO_COLOR` environment variable is
not set to a non-empty value; the examples below are uncoloured.

### Exit codes of `writ check`

| Exit code | Meaning |
|-----------|---------|
| 0 | Every file was read and accepted (warnings are allowed). |
| 1 | At least one program was rejected (it has at least one error). |
| 2 | A usage error (for example no file named, or an unknown option), or at least one file could not be read (an `E9xxx` diagnostic). This wins over 1: if one file is unreadable and another is rejected, the exit code is 2. |

### Running a program

`writ run FILE` checks the program as `writ check --grant Log FILE` does
(so `Log` is the only host capability it may use, besides `Fail`, which
needs no grant; its help for [E3002](#e3002-capability-not-granted) says
so) and, if it is accepted, runs it. The program's `Log.info`
lines and, when it ends, its final value (the value of its last statement,
unless that is `()`) are printed on standard output. Diagnostics are
printed on standard error: those of checking (warnings, or the errors of a
rejected program followed by `FILE: rejected: not run`), and the run-time
error (an `E4xxx` or `E5xxx` code) that ended the run, if one did; what the
program printed before it stays printed. A run-time diagnostic has the same
form as the others; its label is where the program was when it stopped
and, when more than one call was active, a note lists the calls
(`while running (innermost call first):`), each with the line and column
it was at, and `N times` for consecutive calls at the same place, as in a
recursion. The examples of the `E4xxx` and `E5xxx` codes below show
standard output followed by standard error.

A run is bounded by limits, each set with `--limit NAME=VALUE` (repeated,
or comma-separated as in `--limit fuel=1000000,memory=64M`); a policy sets
them in its `[limits]` (docs/policy.md), and the REPL with `:limits`.
Exhausting one ends the run with its own code, and its help says how to
raise it where it was set: `--limit fuel=...` on the command line;
`fuel` in the policy's `[limits]` under `writ run --policy` (unless a
`--limit` named it); `:limits fuel=...` in the REPL; "the fuel limit" to
a program that embeds Writ, which sets its limits in its own way.

| Limit | Bounds | Default | Code |
|-------|--------|---------|------|
| `fuel` | steps of the machine, plus units of work inside library functions and operators | 1000000000 | [E5001](#e5001-fuel-exhausted) |
| `memory` | bytes of live values and the room of the machine's stacks (`64K`, `64M`, `1G`) | 512M | [E5002](#e5002-memory-limit-reached) |
| `depth` | nested calls | 10000000 | [E5003](#e5003-call-depth-limit-reached) |
| `output` | bytes written through `Log` (`K`, `M` and `G` as for `memory`) | 1M | [E5004](#e5004-output-limit-reached) |
| `time` | wall-clock time (`500ms`, `2s`, `1m`) | 10s | [E5005](#e5005-time-limit-reached) |

### Exit codes of `writ run`

| Exit code | Meaning |
|-----------|---------|
| 0 | The program ran to the end (its final value is printed, unless it is `()`). |
| 1 | The program was rejected, and was not run. |
| 2 | A usage error (for example an unknown option or a malformed `--limit`), or the file could not be read (an `E9xxx` diagnostic). |
| 3 | A run-time error ended the run (an `E4xxx` code). |
| 4 | A limit was exhausted (an `E5xxx` code). |
| 5 | The run paused at an operation `--pause-at` names and was saved (`--save`); `writ resume` continues it (also `writ resume` without a reply, which shows the operation and leaves the saved run as it is). |

Output that cannot be written, to a closed pipe (`writ run f.writ | head`,
`2>&1 | true`) or a full disk, is dropped: the run goes on (bounded by its
limits; `Log` output still counts towards `output`) and the exit code is
the one in the table. The same holds for every `writ` command.

`writ explain` exits with 0 when it prints a section, and with 2 when its
argument is not a Writ diagnostic code.

### JSON output

`writ check --format json FILE...` prints one JSON document for all the files
named, in the order they were named:

```json
{
  "version": 1,
  "files": [
    {
      "path": "main.writ",
      "status": "accepted | rejected | unreadable",
      "diagnostics": [
        {
          "code": "E0012",
          "severity": "error | warning",
          "message": "...",
          "file": "main.writ",
          "labels": [
            {
              "primary": true,
              "message": "...",
              "start": { "line": 1, "column": 1, "offset": 0 },
              "end": { "line": 1, "column": 1, "offset": 0 }
            }
          ],
          "notes": ["..."],
          "help": "... or null"
        }
      ],
      "manifest": [
        {
          "effect": "Log",
          "capability": true,
          "sites": [
            { "operation": "info", "kind": "read", "line": 4, "column": 3 }
          ]
        }
      ],
      "signatures": [
        {
          "name": "total",
          "signature": "fn total(prices: List[Int]) -> Int",
          "line": 1,
          "column": 1
        }
      ]
    }
  ]
}
```

The fields:

- `version`: the version of this format, currently `1`. Fields are only ever
  added to it, never removed or changed in meaning.
- `files`: one entry per file named on the command line.
  - `path`: the path as given on the command line.
  - `status`: `"accepted"` (no errors; warnings allowed), `"rejected"` (at
    least one error), or `"unreadable"` (the file could not be read, and its
    only diagnostic is an `E9xxx` code).
  - `diagnostics`: the file's diagnostics, sorted by position; an empty
    array for a file with none.
    - `code`: the code as a string, such as `"E0100"`.
    - `severity`: `"error"` or `"warning"`.
    - `message`: the one-sentence message.
    - `file`: the same path as the enclosing `path`.
    - `labels`: the labelled spans, the primary one first; an empty array
      for a diagnostic about a whole file.
      - `primary`: `true` for the main location, `false` for the others.
      - `message`: the label's text; it may be an empty string.
      - `start` and `end`: where the span starts and where it ends. `end` is
        exclusive: it is the position just after the last labelled
        character, so a span with `start` equal to `end` marks a point (for
        example where something is missing; a diagnostic about the end of
        the input is placed just after the last token of the file). Each position has `line` (1-based),
        `column` (1-based, counted in Unicode characters, not bytes, so `é`
        and `€` each count as one column) and `offset` (0-based, counted in
        bytes of the UTF-8 text). The end of a file that ends with a line
        break is at column 1 of the line after the last one.
    - `notes`: a list of strings, possibly empty.
    - `help`: a string, or `null` when there is no help.
  - `manifest`: for an accepted file, the effects its top level performs,
    sorted by name: `effect`, the effect's name; `capability`, `true` for a
    host capability and `false` otherwise; and `sites`, the places where
    one of its operations is performed, each with `operation` (the
    operation's name, such as `"info"`), `line` and `column`. An empty array
    for a file that is rejected or unreadable.
  - `signatures`: for an accepted file, one entry per top-level function,
    in source order: `name`, the function's name; `signature`, its
    inferred signature as the human output prints it; and `line` and
    `column`, where its declaration starts. An empty array for a file that
    is rejected or unreadable.

Key order inside an object carries no meaning (the current output happens to
sort keys alphabetically). For example, for this program (see
[E0012](#e0012-mismatched-delimiter)), saved as `main.writ`:

```writ
@@JSON_SOURCE@@
```

`writ check --format json main.writ` prints exactly:

```json
@@JSON@@
```
'''

# The E2010 example: a decision over 14 checks and a `strict` flag, written
# as one flat match (split=False), and the same decision split by `strict`
# (split=True), which the checker verifies easily.
_CHECKS = ["address", "age", "bank", "credit", "device", "email", "fraud",
           "identity", "income", "location", "name", "phone", "residence", "salary"]


def _e2010(split):
    out = ["type Checks = {",
           "  " + ", ".join(f"{c}: Bool" for c in _CHECKS[:5]) + ",",
           "  " + ", ".join(f"{c}: Bool" for c in _CHECKS[5:10]) + ",",
           "  " + ", ".join(f"{c}: Bool" for c in _CHECKS[10:]) + ",",
           "  strict: Bool,",
           "}",
           "",
           "/// Strict: every check must pass. Lenient: one passing check is enough.",
           "fn decide(c: Checks) -> Str {"]
    if not split:
        out.append("  match c {")
        out += [f'    {{ {c}: false, strict: true, .. }} => "rejected: {c}",' for c in _CHECKS]
        out += [f'    {{ {c}: true, strict: false, .. }} => "accepted: {c}",' for c in _CHECKS]
        out += ['    { strict: true, .. } => "accepted",', '    _ => "rejected",', "  }"]
    else:
        out += ["  if c.strict {", "    match c {"]
        out += [f'      {{ {c}: false, .. }} => "rejected: {c}",' for c in _CHECKS]
        out += ['      _ => "accepted",', "    }", "  } else {", "    match c {"]
        out += [f'      {{ {c}: true, .. }} => "accepted: {c}",' for c in _CHECKS]
        out += ['      _ => "rejected",', "    }", "  }"]
    out.append("}")
    return "\n".join(out) + "\n"


# The E2013 example: many functions, each with a match on 12 checks that is
# accepted on its own (E2010's limit is per match) but costs a few hundred
# thousand units of work; together they spend the program's budget. The
# document shows the first function and a marker line, which
# `tests/errors_doc.rs` expands back into the program that is run.
_E2013_COPIES = 120


def _e2013(shown):
    checks = _CHECKS[:12]
    fn = ["fn decide0(c: Checks) -> Str {", "  match c {"]
    fn += [f'    {{ {c}: false, strict: true, .. }} => "rejected: {c}",' for c in checks]
    fn += [f'    {{ {c}: true, strict: false, .. }} => "accepted: {c}",' for c in checks]
    fn += ['    { strict: true, .. } => "accepted",', '    _ => "rejected",', "  }", "}"]
    out = ["type Checks = {",
           "  " + ", ".join(f"{c}: Bool" for c in checks[:6]) + ",",
           "  " + ", ".join(f"{c}: Bool" for c in checks[6:]) + ",",
           "  strict: Bool,",
           "}",
           ""] + fn
    if shown:
        out += ["", f"// decide1 to decide{_E2013_COPIES}: the same function again, renamed"]
    else:
        for i in range(1, _E2013_COPIES + 1):
            out += [""] + [fn[0].replace("decide0", f"decide{i}")] + fn[1:]
    return "\n".join(out) + "\n"


SECTIONS = [
dict(code="E0001",
meaning=r'''
The lexer found a character that cannot begin any Writ token: a character
that is not a letter, digit, space, quote, bracket or one of Writ's
operators. Writ rejects it rather than guess what it means. Common causes
are habits from other languages: `#` for a comment, `'` around a string,
a single `&` or `|` used as "and"/"or", `?` for error propagation, or `@`,
`~`, `^`, `` ` `` and `\` outside a string. The message is then "expected a
token, found the character `#` (U+0023)", and the help line names the Writ
way to write the common ones. Several unknown characters in a row are
reported once, as "found the characters `…`". Text in single quotes on one
line, such as `'Ada'`, gets a message of its own, "expected a string in
double quotes, found single quotes", with a help line that spells out the
string in double quotes; it is then read as that string, so the rest of
the line is checked as usual. An invisible character (a zero-width space
U+200B, zero-width joiner or non-joiner, word joiner U+2060, byte-order mark
U+FEFF inside the file, or soft hyphen U+00AD) outside a string is reported
with its code point, because it could hide text inside a name; inside a
string literal these characters are allowed.
''',
source="let name = 'Ada'\nlet first = list.first([3, 1, 2])?\n",
fix=r'''
**Fix**: remove the character or replace it with the Writ syntax the help
line names. Here, the string takes double quotes, and the `Option` is
matched on instead of using `?`. (Comments, another common source of this
error, start with `//` in Writ, not `#`.)
''',
fix_code='let name = "Ada"\nlet first = match list.first([3, 1, 2]) {\n  Some(x) => x,\n  None => 0\n}\n',
),

dict(code="E0002",
meaning=r'''
A string literal has no closing `"` on the line where it starts. In Writ a
string literal never spans a line break: an unterminated string ends at the
end of its line, so that one missing quote cannot swallow the rest of the
file, and the next line is read as code again. The primary label points
just past the last character of the line (where the `"` was expected) and
a secondary label marks the opening `"` ("string starts here"), or, when
the rest of the string follows an interpolation `${...}`, the `}` after
which it continues ("string continues here"). A backslash at the very end
of a line (an attempt to continue the string on the next line) is reported
the same way, once. A common cause is trying to write a multi-line string:
the text on the later lines is then read as code, and the `"` that was
meant to close the string opens a second one, so such an attempt usually
gives several errors; this code is the one to fix first.
''',
source='let greeting = "hello, world\nlet name = "Ada"\n',
fix=r'''
**Fix**: close the string on the same line. For a line break inside the
text, write the escape `\n`; to build a long string from pieces, join
string literals with `++`:
''',
fix_code='let greeting = "hello, world"\nlet name = "Ada"\nlet poem = "roses are red\\nviolets are blue"\nlet same = "roses are red\\n" ++ "violets are blue"\n',
),

dict(code="E0003",
meaning=r'''
A backslash inside a string literal starts an escape sequence that Writ
does not define. The escapes are `\n` (line feed), `\t` (tab), `\r`
(carriage return), `\0` (the NUL character), `\\` (a backslash), `\"` (a
double quote), `\$` (a dollar sign, so that `\${` is not an interpolation)
and `\u{...}` (a Unicode scalar value written as 1 to 6 hexadecimal digits,
such as `\u{e9}` for `é`). Anything else after `\` is rejected instead of
being kept literally, so that a mistyped escape never silently changes the
text. A `\u` escape is also rejected when the `{` is missing (`\u00e9`),
when the digits are not 1 to 6 hex digits, when its `}` does not follow
within 6 hex digits, before the string's closing `"` or the end of the line
(the escape then ends there, and the rest of the string is read as usual),
or when the number is not a Unicode scalar value (above `10FFFF`, or a
surrogate `D800`–`DFFF`); the message then starts with "invalid unicode
escape". A typical cause is a Windows path or a regular expression written
with single backslashes, as here, where `\u` and `\a` are both reported:
''',
source='let path = "C:\\users\\ada"\n',
fix=r'''
**Fix**: write `\\` for each backslash that is meant literally, or use one of
the escapes listed above:
''',
fix_code='let path = "C:\\\\users\\\\ada"\n',
),

dict(code="E0004",
meaning=r'''
An integer literal is outside the range of `Int`, a 64-bit signed integer
holding -9223372036854775808 to 9223372036854775807. Writ never wraps
integers around, so a literal that does not fit is an error rather than a
different number. The one exception is the digits `9223372036854775808`:
they are accepted directly after a minus sign (`-9223372036854775808`, the
smallest `Int`, in an expression or a pattern), and rejected anywhere else
with the message "the largest `Int` is 9223372036854775807" and a help line
saying that only the negative number can be written with these digits.
Negating the smallest `Int` once more, as in `-(-9223372036854775808)`, is
reported too ("found the negation of -9223372036854775808, which is
9223372036854775808").
''',
source='let max_u64 = 18446744073709551615\n',
fix=r'''
**Fix**: use a number that fits in `Int`. For a quantity that really is
larger, use a `Float` literal (which is approximate), or keep the digits in
a string if they are an identifier rather than a number:
''',
fix_code='let max_u64 = 1.8446744073709552e19\nlet order_id = "18446744073709551615"\n',
),

dict(code="E0005",
meaning=r'''
A float literal is too large for `Float`, a 64-bit IEEE 754 number whose
largest finite value is about 1.8e308. Writ has no literal for infinity, and
rejects a literal that would round to it rather than silently producing
one. (A literal too small to represent, such as `1.0e-400`, is accepted and
rounds to `0.0`.)
''',
source='let huge = 1.0e400\n',
fix=r'''
**Fix**: use a smaller exponent, or rescale the computation so that its
numbers stay within range (for example, work in thousands or in logarithms):
''',
fix_code='let huge = 1.0e300\n',
),

dict(code="E0006",
meaning=r'''
A block comment opened with `/*` has no matching `*/` before the end of the
file. Block comments nest in Writ: every `/*` inside a comment opens a
further level, and each level needs its own `*/`. So a comment that merely
*mentions* `/*` must still balance it, as in this example, where the inner
`/* nested */` is closed but the outer comment is not. The label points at
the `/*` that was never closed; everything after it up to the end of the
file was treated as comment text.
''',
source='let x = 1\n/* TODO: handle the /* nested */ case\nlet y = 2\n',
fix=r'''
**Fix**: add a `*/` where the comment should end (one for each `/*` still
open), or use `//` line comments, which do not nest:
''',
fix_code='let x = 1\n/* TODO: handle the /* nested */ case */\nlet y = 2\n',
),

dict(code="E0007",
meaning=r'''
The source contains a Unicode bidirectional control character: one of
U+202A to U+202E (embeddings and overrides), U+2066 to U+2069 (isolates),
U+200E or U+200F (left-to-right and right-to-left marks) or U+061C (Arabic
letter mark). These characters are invisible, but they change the order in
which an editor displays the text around them, so code can look different
from how it runs (the "Trojan Source" attack). Writ rejects them anywhere in
the file: in code, in strings and in comments. Each occurrence is reported
once.
''',
before=r'''
In this example the string contains U+202E RIGHT-TO-LEFT OVERRIDE between
`user` and ` nimda`. Because the character is invisible, and because this
reference must not contain it, it is written here as `⟨U+202E⟩`, both in
the program and in the output; in the real file and the real output it is
the single character itself.
''',
source='let access = "user\u202e nimda"\n',
show='let access = "user⟨U+202E⟩ nimda"\n',
replace_out=[("\u202e", "⟨U+202E⟩")],
fix=r'''
**Fix**: delete the character. If a string really needs it (for example to
produce right-to-left text), write it as an escape, which is visible in the
source:
''',
fix_code='let access = "user\\u{202e} nimda"\n',
),

dict(code="E0008",
meaning=r'''
An identifier mixes letters from two scripts that have look-alike letters:
Latin (including accented Latin), Greek, Cyrillic, and full-width Latin.
A name such as `pаyment` whose `а` is Cyrillic (U+0430) looks exactly like
`payment` with a Latin `a`, yet is a different name, so it could make code
read differently from how it runs. Names written in one script are fine
(`café`, `λαβ`, `имя`), and letters of other scripts (such as CJK) may be
combined with any one of these. The whole identifier is rejected.
''',
before=r'''
In this example the second letter of `pаyment` is the Cyrillic `а`
(U+0430):
''',
source='let p\u0430yment = 10\n',
fix=r'''
**Fix**: write the name in one script. Retyping the name on a keyboard set
to the intended script is usually enough:
''',
fix_code='let payment = 10\n',
),

dict(code="E0009",
meaning=r'''
An interpolation `${` inside a string literal has no matching `}` on its
line. After `${`, the lexer reads ordinary Writ code (which may contain its
own strings and blocks) until the `}` that ends the interpolation. Like the
string around it, an interpolation cannot span lines: if the `}` has not
come by the end of the line, the interpolation (and its string) end there,
and the next line is read as code again. The message says "found the end of
the line", or "found the end of input" on the last line of the file; the
primary label is at that point and a secondary label marks the `${`.
Because the string's closing `"` is read as the *start* of a new string
inside the interpolation, a missing `}` usually comes with an E0002 for
that `"` and an E0100 where the parser met the unexpected string, as in
this example.
''',
source='let name = "Ada"\nlet msg = "hello ${name"\nlet shout = msg ++ "!"\n',
fix=r'''
**Fix**: close the interpolated expression with `}` before the closing `"`.
To put a literal `${` in a string, escape the dollar sign: `"\${"`.
''',
fix_code='let name = "Ada"\nlet msg = "hello ${name}"\nlet shout = msg ++ "!"\nlet literal = "costs \\${price}"\n',
),

dict(code="E0010",
meaning=r'''
An opening bracket, `(`, `[` or `{`, is never closed. Brackets are matched
before parsing, so an unclosed bracket is reported once, naming the bracket
expected and the position (line:column) of the opener, and the damage stays
local: the balancer closes the bracket where it finds the evidence that it
was left open, and the parser carries on from there. That point is the
first of: a closing bracket for an *outer* opener, when the file has more
openers than closers of the unclosed bracket's kind (as in `[1, (2, 3]`;
otherwise the closer is of the wrong kind, E0012); a `}` at the start of a
line that lines up with the line of an outer `{`, while the innermost open
bracket was opened on a line indented further (the `}` is then taken to
close that outer `{`, and the message says "found the `}` that lines up
with the `{` opened at LINE:COLUMN"); a line that starts no further right
than the line on which an unclosed `(` or `[` was opened ("found `let` on
the next line"); a new item beginning in column 1 (`fn name`, `type Name`,
`effect Name`, or a `///` doc comment); or the end of the input. The primary label is at that point; a secondary label marks
the opener.
''',
source='fn double(x: Int) -> Int {\n  x * 2\n\nfn triple(x: Int) -> Int {\n  x * 3\n}\n',
fix=r'''
**Fix**: add the missing closer where the bracketed part should end (the
help line names it):
''',
fix_code='fn double(x: Int) -> Int {\n  x * 2\n}\n\nfn triple(x: Int) -> Int {\n  x * 3\n}\n',
),

dict(code="E0011",
meaning=r'''
A closing bracket, `)`, `]` or `}`, has nothing to close: no bracket is
open at all, or no open bracket is of its kind and it is not a closer of
the wrong kind for the innermost one (E0012). It is usually left over from
an edit, or closes something twice. The balancer drops it and parsing
continues as if it were not there.
''',
source='fn double(x: Int) -> Int {\n  x * 2\n}\n}\n',
fix=r'''
**Fix**: remove the stray closer, or add the opening bracket it was meant to
close:
''',
fix_code='fn double(x: Int) -> Int {\n  x * 2\n}\n',
),

dict(code="E0012",
meaning=r'''
A bracket is closed by a closer of the wrong kind, for example `[` closed
by `)`. To tell a closer of the wrong kind from a missing or an extra one,
the balancer counts the brackets of each kind in the whole file: when there
is an opener too many of the innermost open bracket's kind and a closer too
many of the kind found, as in this example (a `[` without `]` and a `)`
without `(`), the closer is of the wrong kind. It is then taken to be the
one the innermost open bracket needs, so the rest of the program parses as
if it had been written correctly. The message names the closer expected,
the position (line:column) of the opener, and the closer found; a
secondary label marks the opener. (When the closer instead matches an outer
open bracket and the innermost one is simply missing its closer, as in
`[1, (2, 3]`, the innermost is reported as unclosed, E0010.)
''',
source='let xs = [1, 2, 3)\n',
fix=r'''
**Fix**: replace the closer with the one the opener needs (the help line
names it):
''',
fix_code='let xs = [1, 2, 3]\n',
),

dict(code="E0013",
meaning=r"""
The program nests too deeply for Writ to accept: brackets nested more than
256 levels deep, or a syntax tree that would be more than 1000 levels deep
when long chains of operators (`a + b + c + ...`, `!!x`, `a.b.c`,
`A -> B -> C`) are counted together with brackets. Writ caps the depth
before parsing, with a conservative estimate, so that no later stage of the
checker can run out of stack on deeply nested input, whatever program it is
given. The message says which limit was hit: "expected brackets nested at
most 256 deep, found deeper nesting" (with the label "bracket number 257 on
this path"), or "expected an expression at most 1000 levels deep, found a
deeper one (counting brackets and chained operators)" (with the label
"level 1001 starts here"). Only the first bracket or operator beyond the
limit is reported: the group it opens, or the rest of the chain up to the
next separator (such as `,`, `;`, `=`, `=>` or a new statement), is
replaced by a single placeholder and produces no further diagnostics. Hand-written code never comes near these limits; they are
reached by generated code, such as a deeply nested data literal or a sum of
a thousand terms.
""",
before=r"""
This program nests 257 lists, one inside the other:
""",
source='let deep = ' + '[' * 257 + '1' + ']' * 257 + '\n',
fix=r"""
**Fix**: build the value in steps, binding the inner parts to names with
`let`, so that no single expression nests so deeply; for a long chain of
operators, sum a list instead (for example with `list.fold`). Generated data
is best produced in a flatter shape:
""",
fix_code='let inner = [[[1]]]\nlet middle = [[[inner]]]\nlet deep = [[[middle]]]\nlet total = list.fold([1, 2, 3, 4], 0, fn(sum, x) { sum + x })\n',
),

dict(code="E0014",
meaning=r"""
The source contains a line break other than an ordinary line feed (`\n`,
optionally preceded by `\r`): a carriage return on its own, the Unicode line
separator (U+2028) or paragraph separator (U+2029), next-line (U+0085), a
vertical tab or a form feed. Writ ends lines only at `\n`, but many editors,
terminals and review tools also break lines at these characters, so text
after one can look like code while being part of a comment, or look like a
comment while being code. Like bidirectional controls (`E0007`), these
characters are rejected anywhere in the file, even inside strings and
comments. Because this reference must not contain the character, it is
written here as `⟨U+2028⟩` in the program. In the output below, the
terminal-style rendering itself ends the source line at the character.
""",
before=r"""
This program hides a statement behind a line separator inside a comment:
""",
source='let limit = 100 // the cap\u2028let limit2 = 1000000\n',
show='let limit = 100 // the cap⟨U+2028⟩let limit2 = 1000000\n',
fix=r"""
**Fix**: replace the character with an ordinary line break (or remove it).
Inside a string, write `\n`, or a `\u{...}` escape if the character itself is
really wanted:
""",
fix_code='let limit = 100 // the cap\nlet note = "first\\u{2028}second"\n',
),

dict(code="E0015",
meaning=r'''
A multi-line string is laid out wrongly. A multi-line string opens with
`"""` at the end of a line and closes with `"""` as the first thing on a
later line; the spaces and tabs before the closing `"""` are taken off
every line, so each line that is not blank must start with exactly them.
This code reports a line that does not (it has fewer spaces, or tabs where
the closing line has spaces), and text after the opening `"""` on its
line. The primary label marks the line's indentation (or the text after
`"""`); a secondary label marks the closing `"""` that sets the
indentation. See [decision 011](decisions/011-multi-line-strings.md).
''',
source='let rows = """\n    id,amount\n  1,300\n    """\n',
fix=r'''
**Fix**: indent every line of the text at least as far as the closing
`"""`, with the same characters, and start the text on the line after the
opening `"""`:
''',
fix_code='let rows = """\n    id,amount\n    1,300\n    """\n',
),

dict(code="E0016",
meaning=r'''
A number is written in another base: hexadecimal (`0xFF`), octal (`0o17`)
or binary (`0b101`). Writ's numbers are written in decimal only (see
[numbers](language.md#numbers)). The primary label marks the literal;
the help gives its value in decimal when it has one that fits an `Int`.
''',
source='let mask = 0xFF\nmask\n',
fix=r'''
**Fix**: write the number in decimal:
''',
fix_code='let mask = 255\nmask\n',
),

dict(code="E0100",
meaning=r'''
The parser found a token where the grammar does not allow it. (The type
checker reports one more case with this code: `..` in a record type inside
a `type` declaration, such as `Envelope({ id: Str, .. })`, where a record
type must list all its fields.) This is the general syntax error: the message lists what the grammar would have
accepted at that point and names the token found, as in ``expected `)`, `,`
or `:`, found identifier `Int` ``. The list is written in the grammar's own
words ("an expression", "a pattern", "a name", "a block", and "the end of
the statement" for a `;`, a line break or the start of another statement
after a complete one); when two or more binary operators (or an operator
and the call parenthesis) would be accepted, they are summed up as "an
operator", while a lone `(` is named, and at most six expectations are
listed (then "…"). The found token is described as, for example,
`` `}` ``, "identifier `x`", "integer `3`", "a string" or "end of input".
When the file ends in the middle of a construct, the label says "input
ends here", placed just after the last token of the file (not after any
blank lines or comments that follow it), and the help says to finish or
remove the construct. For a few tokens that usually mean the writer was
thinking of another language, the help says what to write instead: `return` (a block's value is its last
expression; Writ has no `return` statement) and `;` where no statement ends.
The same code is used for a list pattern with an element after the `..rest`
part (``expected `]` after the `..` rest pattern, found another element``).
A syntax error at a place already reported by an earlier stage (such as an
unknown character or an unclosed bracket) is not reported again.
''',
source='let xs = [1, 2 3]\n',
extra=[
    dict(before=r'''
After `2`, the list needs a `,` before its next element (or a `]` to end
it, or an operator to continue the element). Another example, with a help
line:
''', source='fn next(x: Int) -> Int {\n  return x + 1\n}\n'),
    dict(before=r'''
And a file that ends in the middle of an expression; the error is placed
after the `*`, not at the comment at the end of the file:
''', source='let price = 10\nlet total = price *\n\n// TODO: the tax\n'),
],
fix=r'''
**Fix**: read the message as "at this point Writ expected one of these", and
complete or correct the code there. Here, add the missing `,`; in the
second example, drop `return`, since a block's value is its last
expression; in the third, give `*` its right-hand operand:
''',
fix_code='let xs = [1, 2, 3]\n\nfn next(x: Int) -> Int {\n  x + 1\n}\n\nlet price = 10\nlet total = price * 2\n',
),

dict(code="E0101",
meaning=r'''
Two or more comparisons are written one after another without `&&` or `||`,
as in `0 < x < 10` or `a == b == c`. In mathematics `0 < x < 10` means "x is
between 0 and 10", but in most programming languages it means
`(0 < x) < 10`, which compares a `Bool` with a number. Writ rejects the
chain so that neither reading is taken silently. The comparison operators
are `==`, `!=`, `<`, `<=`, `>` and `>=`. The primary label covers the
second operator and its right operand, and a secondary label marks the
comparison before it. A longer chain, such as `a < b < c < d`, is reported
once, at its second comparison.
''',
source='let x = 5\nlet in_range = 0 < x < 10\n',
fix=r'''
**Fix**: join the comparisons with `&&` (or `||`), repeating the middle
operand. If you really mean to compare the `Bool` result of one comparison,
put it in parentheses:
''',
fix_code='let x = 5\nlet in_range = 0 < x && x < 10\nlet same = (1 < 2) == true\n',
),

dict(code="E0102",
meaning=r'''
An effect operation, written `Effect.operation`, is named without being
called. Operations are not functions: performing one is an effect, so Writ
only allows it as a call, `Effect.operation(arguments)`, where it is plain
to see where the effect happens (or on the right of `|>`: `url |>
Http.get` is the call `Http.get(url)`). A common cause is passing an
operation to a higher-order function such as `list.map`. Note that a call's `(` must be
on the same line as the operation's name: `Http.get` at the end of a line
followed by `(url)` on the next line is also reported with this code,
because a `(` that starts a line never continues a call.
''',
source='let pages = list.map(["https://a.example"], Http.get)\n',
fix=r'''
**Fix**: call the operation. To pass it where a function is expected, wrap
the call in an anonymous function:
''',
fix_code='let pages = list.map(["https://a.example"], fn(url) { Http.get(url) })\n',
),

dict(code="E0103",
meaning=r'''
A word that Writ reserves appears in the code (outside a string or a
comment). Reserved words cannot be used at all: not as names of variables,
functions, parameters or fields, and not as keywords. The reserved words
are `as`, `async`, `await`, `break`, `const`, `continue`, `do`, `for`,
`import`, `in`, `loop`, `mod`, `mut`, `pub`, `self`, `struct`, `trait`,
`use`, `var`, `where`, `while` and `yield`. None of them means anything in
Writ today; they are reserved so that code written by habit from another
language gets a clear message, and so that the language can grow into them
later. The message has the same form as E0100
("expected …, found reserved word `for`"), and the help depends on the
word: for loop words (`for`, `while`, `loop`, `break`, `continue`, `do`) it
points to `list.map`, `list.filter`, `list.fold` and recursion; for `mut`,
`var` and `const`, to binding a new value with `let`; for `import`, `use`,
`mod` and `pub`, to the standard library namespaces, which need no import;
for `struct` and `trait`, to `type Name = ...`; for `as`, to conversion
functions of the standard library (Writ has no casts); for `self`, to
passing the value as an ordinary parameter (Writ has no methods); for
`async`, `await` and `yield`, to declaring an effect and handling it; for
`in` and `where`, it says the word is reserved for future use.
''',
source='let total = 0\nfor x in [1, 2, 3] {\n  total + x\n}\n',
fix=r'''
**Fix**: express the loop with a standard-library function or recursion,
and rename any variable that uses a reserved word:
''',
fix_code='let total = list.fold([1, 2, 3], 0, fn(sum, x) { sum + x })\n',
),

dict(code="E0104",
meaning=r'''
An effect row contains a row variable (a lower-case name such as `e`, which
stands for "any further effects") in a place where Writ does not allow one.
A row variable may appear in exactly two forms: alone, as in `{e}`, or
after a `|` at the end of the row, as in `{Log, Http | e}`. A row variable
in the comma-separated list next to effect names is rejected, and each
misplaced variable is reported. There are two messages. When the variable
is the last item of the list and no `|` follows, it was most likely meant
as the tail: the message is "expected `|` before the row variable `e`,
found `,`" (label "row variable after a comma"), as in this example, where
`{Log, e}` must be written `{Log | e}`. Anywhere else in the list, the
message is "expected an effect name, found the row variable `e`" (label
"row variable in the middle of the row"). An effect after the `|` is this
error too: "expected one row variable after `|`, found the effect `Log`",
whose help says the effects come first (`{e | Log}` is `{Log | e}`), or,
in a row with no variable at all, that effects are separated by `,`
(`{Log | Http}` is `{Log, Http}`).
''',
source='fn twice(f: fn() -> Unit / {Log, e}) -> Unit / {Log | e} {\n  f()\n  f()\n}\n',
extra=[
    dict(before=r'''
With the row variable before an effect name:
''', source='fn run(f: fn() -> Unit / {e, Log}) -> Unit / {Log | e} {\n  f()\n}\n'),
],
fix=r'''
**Fix**: move the row variable to the end of the row, after `|`:
''',
fix_code='fn twice(f: fn() -> Unit / {Log | e}) -> Unit / {Log | e} {\n  f()\n  f()\n}\n\nfn run(f: fn() -> Unit / {Log | e}) -> Unit / {Log | e} {\n  f()\n}\n',
),

dict(code="E0105",
meaning=r'''
Two statements stand on one line with neither a `;` nor a line break
between them. In Writ a statement ends at the end of its line, or at a `;`;
there is no other separator. Most often the second "statement" was meant to
be part of the first: `let y = f 3` reads as `let y = f` followed by a
separate statement `3`, because Writ calls a function only with its
arguments in parentheses, `f(3)`. Writ rejects the line rather than guess
which was meant. The primary label marks the statement that starts too
early, and a secondary label the one before it; each missing separator is
reported, so `let x = 1 2 3` gives two diagnostics. The rule applies at the
top level of a file and inside blocks; at the top level, a declaration
(`fn`, `type` or `effect`) needs no separator from what stands before or
after it on its line.
''',
source='fn square(x: Int) -> Int {\n  x * x\n}\n\nlet area = square 3\n',
fix=r'''
**Fix**: to call a function, put its arguments in parentheses. If the line
really holds two statements, separate them with `;` or put them on two
lines:
''',
fix_code='fn square(x: Int) -> Int {\n  x * x\n}\n\nlet area = square(3)\nlet width = 3; let height = 4\n',
),

dict(code="E1001",
meaning=r'''
A value name (a variable, parameter or function) is used where nothing of
that name is defined. The names in scope at a point are: the parameters of
the enclosing functions and lambdas; the names bound by earlier `let`s and
`fn`s of the enclosing blocks, and by the pattern of the enclosing `match`
arm or handler clause; `resume` inside a handler clause; every top-level
function of the file (wherever it is declared); and the top-level `let`s
that come *before* the use in the file (a function may use a top-level
`let` only if the `let` is above the function). The standard library's
functions are not bare names: they live in namespaces, as in `list.map` or
`str.split`. The help line offers, in this order: when the name is a
top-level `let` defined further down, a secondary label at that `let` and
the advice to move it up; for `resume` outside a handler, where it can be
used; the closest name in scope, when one is close enough to be a typo; a
namespace function of that name (`list.filter` for a bare `filter`); or,
for a name from another language's standard library, what Writ has
instead (`print`, `len`, `null`, `throw`, `toString`, …). A namespace
spelt as another language spells it (`string.trim(s)`, `array.length(xs)`)
gets the Writ namespace and member (`str.trim`, `list.length`); written
with a capital (`JSON.parse`, `Math.max`), the same help comes with E1006,
since `Name.op(...)` calls an effect's operation. An undefined
name has no type, so nothing more is reported about the expression that
uses it.
''',
source='''\
fn average(scores: List[Float]) -> Float {
  let total = list.fold(scores, 0.0, fn(sum, s) { sum + s })
  total / math.to_float(len(scores))
}
''',
extra=[
    dict(before=r'''
A function that uses a top-level `let` declared below it:
''', source='''\
fn with_tax(amount: Float) -> Float {
  amount * (1.0 + tax_rate)
}

let tax_rate = 0.2
'''),
],
fix=r'''
**Fix**: correct the spelling, define the name, or use the Writ function
the help line names. Here, `list.length` counts the elements; in the
second example, move the `let` above the function that uses it:
''',
fix_code='''\
fn average(scores: List[Float]) -> Float {
  let total = list.fold(scores, 0.0, fn(sum, s) { sum + s })
  total / math.to_float(list.length(scores))
}

let tax_rate = 0.2

fn with_tax(amount: Float) -> Float {
  amount * (1.0 + tax_rate)
}
''',
),

dict(code="E1002",
meaning=r'''
A type name in an annotation or a declaration is not defined. The types
in scope are the built-in `Int`, `Float`, `Bool`, `Str`, `Unit`, `Never`,
`List[a]` and `Map[k, v]`; the prelude's `Option[a]`, `Result[a, e]` and
`Json`; and the program's own `type` declarations (which may be used before
they appear). When the name is another language's name for a Writ type,
the help line gives Writ's (`String` → `Str`, `Integer` and `i64` → `Int`,
`Vec` and `Array` → `List`, `Dict` and `HashMap` → `Map`, `Maybe` →
`Option`, `Void` → `Unit`, …); otherwise it offers the closest type name,
or says when the name is a constructor rather than a type. The same code
reports a lower-case type variable in a `type` or `effect` declaration that
is not one of the declaration's parameters, as `a` in
`type Box = { value: a }` ("expected one of the declaration's type
parameters, found `a`"). (In a function signature, a new lower-case name
is a type parameter of the function, and is never an error.)
''',
source='type User = { name: String, age: Int }\n',
fix=r'''
**Fix**: use the Writ name of the type, declare the type, or, for a type
variable in a declaration, list it after the type's name
(`type Box[a] = { value: a }`):
''',
fix_code='type User = { name: Str, age: Int }\n',
),

dict(code="E1003",
meaning=r'''
A capitalised name used as a value (`Just("Ada")`) or in a pattern
(`Nothing => ...`) is not a constructor. The constructors in scope are
`Some` and `None` (of `Option`), `Ok` and `Err` (of `Result`), those of
`Json` (`Null`, `Bool`, `Number`, `String`, `Array`, `Object`), and those
of the program's own sum types. The help line names Writ's constructor for
one from another language (`Just`, `Nothing`, `Null`, `Nil`, `Left`,
`Right`, `True`, `False`, …); says how to build a value when the name is a
record type (`Point(1, 2)` for `type Point = { x: Int, y: Int }`: records
are written `{ x: 1, y: 2 }`); or offers the closest constructor name. In a
`match`, an unknown constructor causes no second error about missing
arms.
''',
source='''\
fn find_user(id: Int) -> Option[Str] {
  if id == 1 { Just("Ada") } else { None }
}
''',
fix=r'''
**Fix**: use a constructor that exists, here `Some`, or declare the one you
meant in a `type`:
''',
fix_code='''\
fn find_user(id: Int) -> Option[Str] {
  if id == 1 { Some("Ada") } else { None }
}
''',
),

dict(code="E1004",
meaning=r'''
A name is defined twice where it must be unique. This applies to: two
top-level functions (Writ has no overloading: one name, one function), or a
top-level function and a top-level `let`; two `type`s; two constructors,
even in different types (constructor names are global, so `type Shape =
Circle | Square` and `type Tile = Square | Blank` clash); two `effect`s, or
two operations of one effect; two parameters of one function or lambda, or
two type parameters of one declaration; two fields of one record type,
record literal or record pattern; a name bound twice in one pattern, as in
`(x, x)`; and two clauses of one handler for the same operation (or two
`return` clauses). The primary label marks the second definition, and a
secondary label the first. A later `let` of a name that is already bound is
*not* a duplicate: it shadows the earlier one, at the top level as in a
block.
''',
source='''\
fn area(w: Float, h: Float) -> Float {
  w * h
}

fn area(r: Float) -> Float {
  3.14159 * r * r
}
''',
extra=[
    dict(before=r'''
Two sum types with a constructor of the same name:
''', source='''\
type Shape = Circle(Float) | Square(Float)
type Tile = Square | Blank
'''),
],
fix=r'''
**Fix**: give each definition its own name (or remove the one that is not
wanted). For constructors, a prefix or a more specific name usually reads
well:
''',
fix_code='''\
fn rect_area(w: Float, h: Float) -> Float {
  w * h
}

fn circle_area(r: Float) -> Float {
  3.14159 * r * r
}

type Shape = Circle(Float) | Square(Float)
type Tile = SquareTile | Blank
''',
),

dict(code="E1005",
meaning=r'''
A standard-library namespace is used with a member it does not have, as in
`list.len(xs)`. The namespaces are `list`, `str`, `map`, `option`,
`result`, `json` and `math` (each is one file of `stdlib/`), and they hold
functions only. The help line offers the member that other languages' name
means (`len` and `size` → `length`, `push` and `append` → `concat`, `head`
→ `first`, `substring` → `slice`, `to_string` → `str.from`, `get_or_else`
→ `unwrap_or`, …), with how to write what the borrowed name does when the
member alone does not say it (`push`: `xs ++ [x]`), or else the closest
member name. The borrowed names are a table,
`lang/src/types/aliases.rs`; none of them is a function. A local variable or parameter
with the name of a namespace hides it, so `list.length` where `list` is a
parameter is a field access (E2005), not this error.
''',
source='''\
let names = ["Ada", "Grace", "Alan"]
let count = list.len(names)
''',
fix=r'''
**Fix**: use the member the help line names, or look up the namespace's
functions in its file of `stdlib/`:
''',
fix_code='''\
let names = ["Ada", "Grace", "Alan"]
let count = list.length(names)
''',
),

dict(code="E1006",
meaning=r'''
An effect name is not defined: in an effect row (`-> Str / {Logger}`), in
an operation call (`Logger.info(...)`), or in a handler clause
(`Logger.info(m) => ...`). The effects in scope are `Fail`, the host
capabilities `Http`, `Pay`, `Records`, `Audit`, `Log`, `Clock` and
`Confirm`, and the program's own `effect` declarations. The help line
offers the closest effect name, or shows how to declare the effect. When
the name before `.op(...)` is a type or a constructor rather than an
effect, as in `Json.parse(text)`, the message says so ("found `Json`, which
is not an effect"): Writ has no methods or static members, and only effect
operations are called as `Name.op(...)`; functions on a type live in a
lower-case namespace, such as `json.parse`.
''',
source='''\
fn fetch_price(url: Str) -> Str {
  Logger.info("fetching ${url}")
  Http.get(url)
}
''',
extra=[
    dict(before=r'''
A type used as if it had methods:
''', source='''\
fn read_config(text: Str) -> Result[Json, Str] {
  Json.parse(text)
}
'''),
],
fix=r'''
**Fix**: use an effect that exists (here the host's `Log`), declare your
own with `effect Name { ... }`, or call the namespace function:
''',
fix_code='''\
fn fetch_price(url: Str) -> Str {
  Log.info("fetching ${url}")
  Http.get(url)
}

fn read_config(text: Str) -> Result[Json, Str] {
  json.parse(text)
}
''',
),

dict(code="E1007",
meaning=r'''
An operation is called on an effect that does not declare it, as in
`Log.debug(...)`, or a handler clause names such an operation. Each effect
has only the operations of its declaration: for the host capabilities,
see `stdlib/capabilities.writ` (for example `Log` has only `info`, and
`Http` has `get` and `post`). The help line offers the closest operation
name; for a call, when none is close, a note lists the effect's
operations.
''',
source='''\
fn fetch(url: Str) -> Str / {Http, Log} {
  Log.debug("fetching ${url}")
  Http.get(url)
}
''',
fix=r'''
**Fix**: call one of the effect's operations, or, for your own effect, add
the operation to its declaration:
''',
fix_code='''\
fn fetch(url: Str) -> Str / {Http, Log} {
  Log.info("fetching ${url}")
  Http.get(url)
}
''',
),

dict(code="E1008",
meaning=r'''
The name of a standard-library namespace (`list`, `str`, `map`, `option`,
`result`, `json` or `math`) is used as a value: passed as an argument,
called like a function (`str(42)`), or bound with `let`. A namespace is
only a prefix for the functions it holds, as in `str.from(42)`; it has no
value of its own. A common cause is a habit from another language, such
as Python's `str(x)` for converting a value to text or a bare `map(...)`.
The help line names one of the namespace's functions, as an example of how
to use it. (When a local variable or parameter has the namespace's name,
the name means the variable, and this error does not occur.)
''',
source='''\
let ids = [3, 1, 2]
let labels = list.map(ids, str)
''',
fix=r'''
**Fix**: call the function of the namespace that does the job, wrapped in
an anonymous function when a function is expected. To turn a value into
text, use `str.from`, or interpolate it:
''',
fix_code='''\
let ids = [3, 1, 2]
let labels = list.map(ids, fn(id) { str.from(id) })
let same = list.map(ids, fn(id) { "${id}" })
''',
),

dict(code="E1009",
meaning=r'''
A declaration reuses a name that Writ defines itself. A program cannot
declare: an effect named `Fail` or like a host capability (`Http`, `Pay`,
`Records`, `Audit`, `Log`, `Clock`, `Confirm`), since a capability is
provided by the host as the person's policy grants, never by the program;
a type named like a built-in or standard-library type (`Int`, `Float`,
`Bool`, `Str`, `Unit`, `Never`, `List`, `Map`, `Option`, `Result`, `Json`,
and the host's `Receipt` and `Employee`); or a constructor named like one
of the prelude's. Constructor names are global, and besides `Some`,
`None`, `Ok` and `Err` the prelude's include those of `Json`: `Null`,
`Bool`, `Number`, `String`, `Array` and `Object`, which are easy to
choose by accident for a type of one's own, as in the second example. The
built-in effects, types and constructors need no declaration: every
program can use them as they are.
''',
source='''\
effect Log {
  fn info(message: Str) -> Unit
}

fn checkout(total: Int) -> Unit {
  Log.info("charging ${total}")
}
''',
extra=[
    dict(before=r'''
A sum type with a constructor named like one of `Json`'s:
''', source='''\
type Cell = Empty | Text(Str) | Number(Float)
'''),
],
fix=r'''
**Fix**: delete the declaration of a built-in effect or type and use the
built-in one; for a type or effect of your own, choose a name that is not
taken:
''',
fix_code='''\
type Cell = Empty | Text(Str) | Num(Float)

fn checkout(total: Int) -> Unit {
  Log.info("charging ${total}")
}
''',
),

dict(code="E1010",
meaning=r'''
A top-level value would be used before it exists. The statements at the
top level of a file run in order, once, while functions may be declared
anywhere. A function may use a top-level `let` declared above it (using one
declared below it is E1001). This code reports the two ways such a
function can still be called too early: a top-level statement calls a
function (directly, or through other functions) that uses a top-level
`let` defined *after* the statement, which would not have run yet; or a
top-level `let` and one or more functions depend on each other in a cycle,
as in `let config = load()` where `load` reads `config`, so the value
would be needed to compute itself ("found `config` and `load` depending on
each other"). The primary label marks the statement; in the first case, a
secondary label marks the `let` it needs.
''',
source='''\
let invoice = with_tax(120.0)

let tax_rate = 0.2

fn with_tax(amount: Float) -> Float {
  amount * (1.0 + tax_rate)
}
''',
fix=r'''
**Fix**: move the statement below the `let`s it depends on (or the `let`s
above it). For a cycle, pass the value to the function as a parameter
instead of reading the top-level `let`:
''',
fix_code='''\
let tax_rate = 0.2

let invoice = with_tax(120.0)

fn with_tax(amount: Float) -> Float {
  amount * (1.0 + tax_rate)
}
''',
),


dict(code="E1011",
meaning=r"""
A top-level `let` or `fn` takes the name of an input the host declares
(`writ check --input-type NAME=TYPE`, or an embedder's declared inputs;
see [embedding: inputs](embedding.md#inputs)). An input is the host's
contract with the program: its value comes from the host, checked against
its declared type, so the program may use it but not define it again. (A
local — a parameter, a `let` inside a block — may still hide it, as any
local hides a top-level name.)
""",
source='let request = "BER"\nLog.info(request)\n',
args=["--input-type", "request=Str", "main.writ"],
lead="`writ check --input-type request=Str main.writ` prints:",
fix=r"""
**Fix**: use the input as it is, or give the definition another name:
""",
fix_code='let destination = "BER"\nLog.info("${request} or ${destination}")\n',
),

dict(code="E2001",
meaning=r'''
A value's type is not the type its place requires. This is the general
type error: the message has the form "expected `T`, found `U`", with the
primary label on the value that has the wrong type. The places
that require a type are listed here with, in parentheses, the secondary
label that marks where the requirement comes from, when there is one: a
function's declared result type ("the result type is declared here"); a
`let` annotation ("the type is declared here"); a parameter's type, for an
argument of a call; the first branch of an `if` ("the first branch fixes
the type of the `if`"), the first arm of a `match`, the first clause of a
handler and the first element of a list, for the others; the left operand
of a binary operator, for the right one ("both sides of `+` must have the
same type"); `Bool`, for the condition of an `if`, a guard, and the
operands of `&&`, `||` and `!`; the value matched, for a pattern ("this is
the value matched"). When the difference is inside a larger type, a note
names the parts that differ (for `List[Int]` and `List[Str]`: "`Int` and
`Str` are different types").

The help line covers common cases: Writ never converts between `Int` and
`Float` implicitly (use `math.to_float` or `math.to_int`); a type
parameter of a signature stands for any type the caller picks, so the
function cannot assume it is, say, `Int`; an `if` without `else` has the
type `Unit`, so it cannot produce a value.

Effect rows are part of function types, so the same code is used when a
function value is passed, returned or stored where a function type whose
row does not allow one of its effects is expected: for example a lambda
that performs `Log` given for a parameter of type `fn(Int) -> Int / {}`,
or given to `list.map` inside a function declared `/ {}` (the message
shows the two function types, and the label says "does not allow the
effect `Log`"). An operation or call that performs an effect the
enclosing function's declared row does not allow is `E3001` instead. This
code is also used for a record type that contains itself, such as
`type Node = { next: Node }`, which would be infinitely large.
''',
source='''\
fn average(xs: List[Int]) -> Float {
  list.sum(xs) / list.length(xs)
}
''',
fix=r'''
**Fix**: make the value have the required type: convert it, wrap it (for
example in `Some(...)`), or correct the annotation if it is the annotation
that is wrong. Here the sum and the count are converted to `Float` before
dividing:
''',
fix_code='''\
fn average(xs: List[Int]) -> Float {
  math.to_float(list.sum(xs)) / math.to_float(list.length(xs))
}
''',
),

dict(code="E2002",
meaning=r'''
A function, constructor or effect operation is called with more or fewer
arguments than it takes. Writ has no default, optional or variadic
arguments, and no partial application: a call passes exactly the
parameters declared. With a pipe, the value before `|>` is the first
argument (`xs |> list.map(f)` is `list.map(xs, f)`), and a note says so.
When the function is a named one of the program, a secondary label marks
its definition; for a function (the library's too) the help gives its
type, so the parameters it takes can be read off. The arguments are still
checked on their own, so a mistake inside one is reported too.
''',
source='''\
let prices = [120, 80, 95]
let total = list.fold(prices, fn(sum, p) { sum + p })
''',
fix=r'''
**Fix**: pass exactly the arguments the function declares; for the
standard library, see the signature in `stdlib/`. Here `list.fold` takes the
list, the initial value and the function:
''',
fix_code='''\
let prices = [120, 80, 95]
let total = list.fold(prices, 0, fn(sum, p) { sum + p })
''',
),

dict(code="E2003",
meaning=r'''
Something that is not a function is called: a number, a string, a record,
a list, or a constructor without fields such as `None` (which is a value,
not a function to call with `()`). A common cause is writing a field as if
it were a method, as in `user.name()`: Writ has no methods, and a record's
field is read without parentheses. The label names the type of what was
called.
''',
source='''\
let user = { name: "Ada", age: 36 }
let greeting = "Hello, ${user.name()}"
''',
fix=r'''
**Fix**: drop the parentheses to use the value, or call the function you
meant (a namespace function takes the value as an argument, as in
`str.length(user.name)`):
''',
fix_code='''\
let user = { name: "Ada", age: 36 }
let greeting = "Hello, ${user.name}"
''',
),

dict(code="E2004",
meaning=r'''
A type would have to contain itself: the checker found that some type `a`
must equal a type built from `a`, such as `List[a]` or `fn(a) -> b`, and no
finite type is like that. It usually means that a value is used inside
itself: a function applied to itself (`f(f)`), or a list put into its own
elements, often because of a typo in a name, as in this example, where
`[items]` was meant to be `[item]`.
''',
source='''\
fn add_item(items, item) {
  items ++ [items]
}
''',
fix=r'''
**Fix**: look for the value that is used inside itself, usually a wrong
name:
''',
fix_code='''\
fn add_item(items, item) {
  items ++ [item]
}
''',
),

dict(code="E2005",
meaning=r'''
A record does not have a field that is used. This covers: reading a field,
`r.f`, of a record type without `f` (the help line offers the closest field
name, or a note lists the fields); an update `{ ..r, f: v }` where `r` has
no field `f` (an update only replaces existing fields); and a record passed
where a record with other fields is expected, such as a record literal
with an extra field given a declared record type (the label names the
field one side has and the other lacks). Reading a field of something that
is not a record, such as `names.length` on a list, is reported too: Writ
has no methods, and for a list, a string, a map, an `Option`, a `Result`
or a `Json` value the help line names the namespace function to call
instead.
''',
source='''\
type Flight = { carrier: Str, price: Int, stops: Int }

fn is_cheap(f: Flight) -> Bool {
  f.cost < 300
}
''',
extra=[
    dict(before=r'''
A field read on a list, as a method would be in another language:
''', source='''\
let names = ["Ada", "Grace"]
let count = names.length
'''),
],
fix=r'''
**Fix**: use a field the record has (or add the field to the record type),
and call namespace functions for lists, strings, maps and the other
built-in types:
''',
fix_code='''\
type Flight = { carrier: Str, price: Int, stops: Int }

fn is_cheap(f: Flight) -> Bool {
  f.price < 300
}

let names = ["Ada", "Grace"]
let count = list.length(names)
''',
),

dict(code="E2006",
meaning=r'''
An operator, a comparison or an interpolation is used on a type that does
not support it. Arithmetic (`+`, `-`, `*`, `/`, `%` and prefix `-`) needs a
number, `Int` or `Float`; ordering (`<`, `<=`, `>`, `>=`) needs a number,
`Str`, `Bool`, `Unit`, or a list or tuple of those; `==` and `!=` work on
every type except functions (and types containing functions); `++` needs
`Str` or a list; `${...}` interpolation needs a type with a display form,
which every type has except functions. Standard-library functions declare
the same requirements (`list.sort` needs an element type with an order), so
passing them a value without it is reported here too ("for this
operation"). The most common case is `+` on strings, where the help line
says to join strings with `++`. In a function with a type parameter, the
parameter supports only the bounds declared for it, and the help line shows
how to declare the one that is missing (`fn largest[a: Ord](...)`).
''',
source='''\
fn greet(name: Str) -> Str {
  "Hello, " + name
}
''',
fix=r'''
**Fix**: use the operator for the type (`++` to join strings), compare a
field or a key of the value instead of the whole value (for example with
`list.sort_by`), or declare the bound a type parameter needs:
''',
fix_code='''\
fn greet(name: Str) -> Str {
  "Hello, " ++ name
}
''',
),

dict(code="E2007",
meaning=r'''
A named type is given the wrong number of type arguments, in brackets after
its name: `List` needs one (`List[Int]`), `Map` two (`Map[Str, Int]`),
`Option` one and `Result` two (`Result[Int, Str]`: the value and the error);
`Int`, `Str` and the other basic types take none; a declared
`type Name[a, b]` takes as many as it declares. An effect in an effect row
takes the arguments of its declaration the same way (`{State[Int]}` for
`effect State[s]`). The help line shows the type written correctly.
The same code is used when a parameter that a declaration uses as an effect
row (`type Job[e] = Job(fn() -> Unit / {e})`) is given a type instead of a
row variable: write `Job[e]`, not `Job[Int]`.
''',
source='''\
fn parse_age(text: Str) -> Result[Int] {
  match str.parse_int(text) {
    Some(n) => Ok(n),
    None => Err("not a number: ${text}"),
  }
}
''',
fix=r'''
**Fix**: write every type argument. A `Result` names its error type too:
''',
fix_code='''\
fn parse_age(text: Str) -> Result[Int, Str] {
  match str.parse_int(text) {
    Some(n) => Ok(n),
    None => Err("not a number: ${text}"),
  }
}
''',
),

dict(code="E2008",
meaning=r'''
A constructor pattern has a different number of fields from the
constructor's declaration, as `Rect(side)` for `Rect(Float, Float)`, or
`Some` without its field: a pattern must list every field (use `_` for the
ones not needed). The label shows the pattern with the right number of
fields. The same code is used for a handler clause whose parameters do not
match the operation's, as `Ask.ask(q, extra) => ...` for an operation that
takes one argument. (A *call* of a constructor with the wrong number of
arguments is E2002.)
''',
source='''\
type Shape = Circle(Float) | Rect(Float, Float)

fn area(s: Shape) -> Float {
  match s {
    Circle(r) => 3.14159 * r * r,
    Rect(side) => side * side,
  }
}
''',
fix=r'''
**Fix**: bind every field, with `_` for those the arm does not use:
''',
fix_code='''\
type Shape = Circle(Float) | Rect(Float, Float)

fn area(s: Shape) -> Float {
  match s {
    Circle(r) => 3.14159 * r * r,
    Rect(w, h) => w * h,
  }
}
''',
),

dict(code="E2009",
meaning=r'''
A type parameter written in a function's signature would have to stand
for one particular type from outside the function. A lower-case name in a
signature, such as `a` in `fn pick(o: Option[a]) -> a`, means "any type the
caller picks", so inside the function it is a type of its own, equal to no
other. This error occurs when the function's body mixes such a type with a
value from outside it whose type is not that parameter: typically a
function declared inside another one, with a signature, whose body uses a
parameter or variable of the enclosing function. The message names the
outside type as the checker knows it, which for an unannotated parameter is
another type variable (`b` below).
''',
source='''\
fn with_default(value, fallback) {
  fn pick(o: Option[a]) -> a {
    match o {
      Some(x) => x,
      None => fallback,
    }
  }
  pick(value)
}
''',
fix=r'''
**Fix**: leave the inner signature out, so that its types are inferred, or
give the enclosing function a signature that uses the same type parameter
(a type parameter of the enclosing function's signature is in scope in the
functions declared inside it):
''',
fix_code='''\
fn with_default(value: Option[a], fallback: a) -> a {
  fn pick(o: Option[a]) -> a {
    match o {
      Some(x) => x,
      None => fallback,
    }
  }
  pick(value)
}
''',
),

dict(code="E2010",
meaning=r'''
A `match` (or a `let` or handler pattern) is too large for the checker to
verify within its limits. Checking that the arms cover every value, and
finding the arms that can never be reached, is a search whose cost can grow
exponentially with the number of values matched at once: a match on a
tuple or record of many `Bool` fields, whose arms each test different
fields, makes the checker consider every combination of them. The
checker stops after a fixed amount of work (independent of the machine) and
reports this error rather than accepting a match it could not verify. The
label covers the whole match. (The same code reports a type too large to
check: a `let` value or a call result whose type, counted as a tree (a part
used twice counted twice), has more than 50,000 parts, as when a value is
paired with itself again and again (`let v1 = (v0, v0)`, `let v2 = (v1,
v1)`, ...) or a function returning `(x, x)` is applied to its own result;
or a use of a generic name or declared type that would need more than
50,000 type nodes. The label is on that value or use, it is reported once
(values built from it are not reported again), and the fix is to give the
values smaller types.) Most matches stay far below the limit; it
can be reached by a match with many fields and many arms, like this one,
where every arm tests one of 14 checks together with the `strict` field:
''',
source=_e2010(split=False),
fix=r'''
**Fix**: split the match into smaller ones, each on fewer values (another
way is to put the checks in a list and use `list.all` or `list.find`).
Here, an `if` decides on `strict` first, and a match for each case then
tests one field per arm:
''',
fix_code=_e2010(split=True),
),

dict(code="E2011",
meaning=r'''
A bound on a type parameter, as in `fn largest[a: Ord](...)`, is not one of
the five bounds Writ has: `Eq` (supports `==` and `!=`), `Ord` (ordering,
and equality), `Num` (arithmetic, and ordering, equality and display),
`Show` (a display form, for `${...}` interpolation) and `Concat` (`++`).
Writ has no user-defined interfaces (traits, type classes), so no other
bound can exist; bounds are combined with `+`, as in `[a: Ord + Show]`. The
help line offers the closest bound when the name is a misspelling. The
unknown bound is ignored, so if the function needs a capability that only
it would have given, that is reported too.
''',
source='''\
fn largest[a: Ord + Clone](xs: List[a]) -> Option[a] {
  list.max(xs)
}
''',
fix=r'''
**Fix**: keep only Writ's bounds. Values in Writ are immutable and can be
shared freely, so nothing like `Clone` is needed:
''',
fix_code='''\
fn largest[a: Ord](xs: List[a]) -> Option[a] {
  list.max(xs)
}
''',
),

dict(code="E2012",
meaning=r'''
A parameter of an effect operation has no type. An operation's signature
is the interface between the program that performs it and the handler that
answers it (possibly the host), so each of its parameters must be written
with a type: `fn send(to: Str, message: Str)`. (An operation's result type
may be left out, and then is `Unit`; the parameters and result of an
ordinary function may be left out, and are inferred.)
''',
source='''\
effect Notify {
  fn send(to, message: Str) -> Unit
}
''',
fix=r'''
**Fix**: write the type of every parameter of the operation:
''',
fix_code='''\
effect Notify {
  fn send(to: Str, message: Str) -> Unit
}
''',
),

dict(code="E2013",
meaning=r'''
The program needs more work to check than the checker allows one program
(or one REPL input). Every step of checking is counted (an expression
inferred, a part of a type visited, a row of a match considered) against a
fixed budget of 40,000,000 units, independent of the machine, and a program
that spends it is rejected rather than checked for as long as it takes;
nothing after that point is reported. Ordinary programs use a small part
of the budget (every program shipped with Writ uses less than a fiftieth
of it). It is reached by programs built to be expensive to
check, or by very many expensive parts together, like this one: each of
its functions has a `match` on 12 checks that is verified within its own
limit (`E2010`), but checking each costs a few hundred thousand units, and
the program has 121 of them. The label is on the expression being
checked when the budget ran out.
''',
source=_e2013(shown=False),
show=_e2013(shown=True),
fix=r'''
**Fix**: make each part cheaper to check: here, decide on `strict` first,
so that each match tests one field per arm (as in `E2010`'s fix); these
matches cost a few thousand units each. Splitting a large program into
several programs also works.
''',
fix_code='''\
type Checks = {
  address: Bool, age: Bool, bank: Bool, credit: Bool, device: Bool, email: Bool,
  fraud: Bool, identity: Bool, income: Bool, location: Bool, name: Bool, phone: Bool,
  strict: Bool,
}

fn decide0(c: Checks) -> Str {
  if c.strict {
    match c {
      { address: false, .. } => "rejected: address",
      { age: false, .. } => "rejected: age",
      { bank: false, .. } => "rejected: bank",
      { credit: false, .. } => "rejected: credit",
      _ => "accepted",
    }
  } else {
    match c {
      { address: true, .. } => "accepted: address",
      { age: true, .. } => "accepted: age",
      _ => "rejected",
    }
  }
}
''',
),


dict(code="E2014",
meaning=r"""
The type a host declared for an input (`writ check --input-type
NAME=TYPE`, or an embedder's declared inputs; see
[embedding: inputs](embedding.md#inputs)) is not a type an input can
have: it does not parse, or it is not data. An input's type is `Int`,
`Float`, `Str`, `Bool`, `()`, `List[T]`, `Map[Str, T]`, `Option[T]`, a
tuple, or a closed record (`{ to: Str, budget_cents: Int }`) of these —
not a function, a type variable, an open record, or a type the program
declares (the program cannot change its host's contract). The message
names the input, quotes its declared type and says what is wrong. Two
inputs of one name, or an input not named like a value (`request`), are
this error too.
""",
source='Log.info("from ${when}")\n',
args=["--input-type", "when=Date", "main.writ"],
lead="`writ check --input-type when=Date main.writ` prints:",
fix=r"""
**Fix**: declare the input with a data type (here, a date as its ISO text,
`--input-type when=Str`).
""",
),

dict(code="E2015",
meaning=r"""
`list.sum` is used where the type of the numbers it adds is a type
parameter: in a generic function, written (`[n: Num]`) or inferred (`fn
total(xs) { list.sum(xs) }`), or a generic `let` (`let f = list.sum`).
The sum of no numbers is `0` for `Int`s and `0.0` for `Float`s, and
which one is chosen where `list.sum` is written, from the type the
checker finds there; a type parameter may be `Int` at one call and
`Float` at another, so the empty sum could not be right for both, and
the use is refused rather than give `0` where `0.0` is due. (Where
nothing makes the numbers generic, as in `list.sum([])` alone, they are
`Int`s.)
""",
source='''\
fn total(xs) {
  list.sum(xs)
}

let prices: List[Float] = []
total(prices)
''',
fix=r'''
**Fix**: write the numbers' type where they come from (or add them with
`list.fold(xs, 0.0, fn(a, x) { a + x })`, whose start value says which
zero):
''',
fix_code='''\
fn total(xs: List[Float]) -> Float {
  list.sum(xs)
}

let prices: List[Float] = []
total(prices)
''',
),

dict(code="E2101",
meaning=r'''
A `match` has no arm for some values of the type matched. Writ requires
every `match` to handle every value, so that a program cannot stop with
"no arm matched" while it runs. The message lists up to three patterns
that no arm matches (such as `Refunded`, `None`, `[_, _, ..]` or
`(false, _)`); `_` in them stands for any value. An arm with an `if` guard
does not count towards covering values, since its guard may be false (a
note says so when the match has guards). Values of `Int`, `Float` and
`Str` cannot all be listed, so a match on them needs a final arm with `_`
or a name. The check runs only when the arms have no type errors, so a
missing arm is never a consequence of another mistake.
''',
source='''\
type Status = Pending | Paid | Refunded

fn label(s: Status) -> Str {
  match s {
    Pending => "waiting for payment",
    Paid => "paid",
  }
}
''',
fix=r'''
**Fix**: add an arm for each missing case. A final `_ => ...` arm also
makes the match complete, but then adding a constructor to the type later
goes unnoticed, so listing the cases is usually better:
''',
fix_code='''\
type Status = Pending | Paid | Refunded

fn label(s: Status) -> Str {
  match s {
    Pending => "waiting for payment",
    Paid => "paid",
    Refunded => "refunded",
  }
}
''',
),

dict(code="W2102",
meaning=r'''
A `match` arm can never be chosen, because every value its pattern matches
is already matched by the arms above it (arms are tried in order, and the
first one that matches is taken). Usually a catch-all arm, `_` or a plain
name, was put before more specific ones, or the same case is listed twice.
This is a warning: the program is accepted (the arm is simply dead code),
but it usually shows that the arms are not in the intended order. Arms
with an `if` guard never hide the arms after them, since the guard may be
false.
''',
source='''\
fn describe(n: Int) -> Str {
  match n {
    0 => "none",
    _ => "some",
    1 => "one",
  }
}
''',
rc=0,
fix=r'''
**Fix**: move the specific arm above the catch-all, or remove it if it is
not needed:
''',
fix_code='''\
fn describe(n: Int) -> Str {
  match n {
    0 => "none",
    1 => "one",
    _ => "some",
  }
}
''',
),

dict(code="E2103",
meaning=r'''
A pattern that must match every value does not. The pattern of a `let`
(such as `let (a, b) = pair` or `let { name, .. } = user`), a lambda's
pattern parameter (`fn((k, v)) { ... }`) and the
patterns of a handler clause (`Eff.op(p) => ...` and `return(p) => ...`)
have no other arm to fall back on, so they must be *irrefutable*: a name,
`_`, `()`, or a tuple, a record or the constructor of a one-constructor
type made of irrefutable patterns. A constructor of a type with several
constructors, a number, string or `Bool` literal, or a list pattern can
fail to match,
and the message names a value that it does not match (here `[]`, the empty
list). (A function's parameters are plain names, so they never have this
problem.)
''',
source='''\
let words = str.split("ship the order", " ")
let [first, ..rest] = words
''',
fix=r'''
**Fix**: use `match`, with an arm for the other cases, or a standard-library
function that returns an `Option` (such as `list.first`) and a `match` on
that:
''',
fix_code='''\
let words = str.split("ship the order", " ")
let first = match words {
  [w, ..] => w,
  [] => "",
}
''',
),

dict(code="E3001",
meaning=r'''
An operation, or a call of a function, performs an effect that the effect
row declared by the function it is in does not allow. A function whose
signature has a row after `/`, such as `-> Str / {Http}`, may perform only
the effects listed: `/ {}` allows none, and a row variable such as `e` in
`/ {e}` stands for the effects of the functions passed in, which the body
may perform only by calling those functions. A call performs the callee's
effects: calling a function of type `fn(Str) -> Unit / {Log}` performs
`Log`, in whatever function the call is written. The primary label is on
the operation or call, the message names the effects allowed ("expected
only {Http} in `status`", or "expected no effects" for `/ {}`) and the
effect performed, and a secondary label marks the declared row.

A function with no row written has its effects inferred, so its own body
never causes this error; its callers see the effects in its type. An
effect handled by a `handle` inside the function does not count, but an
operation performed in a handler's clause does, since clauses run outside
their handler. A *function value* with effects passed, returned or stored
where a function type with a smaller row is expected is `E2001`, not this
code.
''',
before=r'''
Here `status` declares that it performs only `Http`, but it also calls a
logging helper, whose type says it performs `Log`:
''',
source='''\
/// Write a line to the run's log.
fn trace(message: Str) -> Unit / {Log} {
  Log.info("[trace] ${message}")
}

/// Fetch the status page of a service.
fn status(url: Str) -> Str / {Http} {
  trace("checking ${url}")
  Http.get(url ++ "/status")
}
''',
fix=r'''
**Fix**: add the effect to the declared row (the callers of the function
then perform it too), handle it inside the function with `handle`, or
remove the operation or call. Here `status` is allowed to log:
''',
fix_code='''\
/// Write a line to the run's log.
fn trace(message: Str) -> Unit / {Log} {
  Log.info("[trace] ${message}")
}

/// Fetch the status page of a service.
fn status(url: Str) -> Str / {Http, Log} {
  trace("checking ${url}")
  Http.get(url ++ "/status")
}
''',
),

dict(code="E3002",
meaning=r'''
`writ check --grant CAPABILITIES FILE` checks a program against the host
capabilities a person grants it (a comma-separated list, such as
`--grant Http,Log`; `--grant ''` grants none), and rejects it when its top
level may perform a capability outside that set, so that it is refused
before it does anything. The host capabilities are `Http`, `Pay`,
`Records`, `Audit`, `Log`, `Clock` and `Confirm` (declared in
`stdlib/capabilities.writ`); `Fail` needs no grant. What the top level may
perform is the program's manifest: the effects of its top-level
statements, including everything the functions they call perform, less
what the program's own handlers handle. A function that is never called
from the top level, or a capability the program handles itself (such as a
stub `Http` handler), needs no grant.

There is one diagnostic per capability missing. Its primary label is the
first place where an operation of that capability is performed, often
inside a function rather than at the top-level call, and up to three more
places are secondary labels ("also needs it"); the help line shows a
`--grant` list that would accept the program. Elsewhere the help names
what grants there: under a policy, the `[grants.NAME]` table to add to it;
under `writ run` without one, `--policy FILE`; in the REPL, `:policy FILE`;
to a program that embeds Writ, plain words (the diagnostic carries the
capability, the grants and where they came from as data). Without `--grant`, no
capability is checked and this code never appears; the capabilities a
program needs are then listed after the signatures of an accepted program
(see [Human output](#human-output)).
''',
before=r'''
Suppose the person running this program grants it only `Log`, and it is
checked with `writ check --grant Log main.writ`:
''',
source='''\
/// Post a short daily report to the team's webhook.
fn report(done: List[Str]) -> Str / {Http, Log} {
  let body = str.join(done, "\\n")
  Log.info("sending ${list.length(done)} items")
  Http.post("https://hooks.example.com/daily", body)
}

let reply = report(["fixed the login bug", "reviewed the payment flow"])
Log.info(reply)
''',
args=["--grant", "Log", "main.writ"],
lead="`writ check --grant Log main.writ` prints:",
fix=r'''
**Fix**: if the program should have the capability, grant it:
`writ check --grant Http,Log main.writ` accepts this program unchanged.
Otherwise remove what performs it. Here the report is printed instead of
posted, and `writ check --grant Log main.writ` accepts it:
''',
fix_code='''\
/// Print a short daily report to the run's log.
fn report(done: List[Str]) -> Unit / {Log} {
  Log.info("${list.length(done)} items done:")
  Log.info(str.join(done, "\\n"))
}

report(["fixed the login bug", "reviewed the payment flow"])
''',
),

dict(code="E3003",
meaning=r'''
An effect that the program declares itself (with `effect`) reaches the top
level of the program without a handler. Only the host capabilities and
`Fail` are left to the host; a program's own effect means nothing outside
the program, so each of its operations must run inside a `handle` with a
clause for it. Functions may perform the effect freely (their row says so,
such as `/ {Config}`); it is an error only when the top-level statements
perform it, directly or through the functions they call. The primary label
is the top-level statement through which the effect reaches the top ("…
reaches the top level here, unhandled"): the handler belongs around it. Up
to three secondary labels show where an operation of the effect is
performed ("is performed here"): inside that statement, when it performs
one itself, else in the functions it reaches them through.
''',
before=r'''
Here `port` asks a `Config` effect for a setting, and the top level calls
`port` without handling `Config`:
''',
source='''\
/// Settings the program looks up while it runs.
effect Config {
  fn lookup(key: Str) -> Option[Str]
}

fn port() -> Int / {Config} {
  let text = option.unwrap_or(Config.lookup("port"), "8080")
  option.unwrap_or(str.parse_int(text), 8080)
}

Log.info("listening on port ${port()}")
''',
fix=r'''
**Fix**: handle the effect around the code that performs it, at the top
level or in a function that the top level calls. Here the top level answers
`Config.lookup` from a map of settings:
''',
fix_code='''\
/// Settings the program looks up while it runs.
effect Config {
  fn lookup(key: Str) -> Option[Str]
}

fn port() -> Int / {Config} {
  let text = option.unwrap_or(Config.lookup("port"), "8080")
  option.unwrap_or(str.parse_int(text), 8080)
}

let settings = map.from_list([("port", "3000")])
let chosen = handle port() with {
  Config.lookup(key) => resume(map.get(settings, key)),
}
Log.info("listening on port ${chosen}")
''',
),

dict(code="E3004",
meaning=r'''
A `handle` has clauses for some operations of an effect but not for all of
them. A handler handles an effect as a whole: as soon as one clause names
`Store`, the effect `Store` leaves the row of the handled code, so an
operation of it without a clause would have nowhere to go. The message
lists the operations without a clause, and the label is on the handler's
first clause for that effect. (An effect that has no clause at all in a
handler is simply not handled by it: its operations go to the next handler
out.)
''',
source='''\
/// A key-value store the program reads and writes.
effect Store {
  fn read(key: Str) -> Option[Int]
  fn write(key: Str, value: Int) -> Unit
}

/// Count one more visit of `page`.
fn visit(page: Str) -> Int / {Store} {
  let count = option.unwrap_or(Store.read(page), 0) + 1
  Store.write(page, count)
  count
}

let visits = handle visit("/home") with {
  Store.read(key) => resume(None),
}
Log.info("visits: ${visits}")
''',
fix=r'''
**Fix**: add a clause for each missing operation. (A clause can also pass
an operation on to the next handler out, as in
`Store.write(k, v) => resume(Store.write(k, v))`.) Here the store is kept
in a handler parameter, which `Store.write` updates:
''',
fix_code='''\
/// A key-value store the program reads and writes.
effect Store {
  fn read(key: Str) -> Option[Int]
  fn write(key: Str, value: Int) -> Unit
}

/// Count one more visit of `page`.
fn visit(page: Str) -> Int / {Store} {
  let count = option.unwrap_or(Store.read(page), 0) + 1
  Store.write(page, count)
  count
}

let visits = handle visit("/home") with (saved = map.empty()) {
  Store.read(key) => resume(map.get(saved, key), saved),
  Store.write(key, value) => resume((), map.insert(saved, key, value)),
}
Log.info("visits: ${visits}")
''',
),

dict(code="W3005",
meaning=r'''
A handler's clause for an operation whose result type is `Never`, such as
`Fail.fail`, uses its `resume` (a handler nested in the clause has its
own, which does not count). Such an operation never returns to the code
that performed it, so its clause cannot continue that code: `resume` there
would have to be given a value of type `Never`, and no value has that
type. Only an expression that itself never returns, such as another
`Fail.fail(...)`, fits, so the `resume` can never actually run; the program
is accepted, but the clause was probably written as if the operation
returned. The label covers the body of the clause. (Calling `resume` with
an ordinary value, such as `resume(0)`, is also the error `E2001`,
"expected `Never`, found `Int`".)
''',
before=r'''
A common case is re-raising a failure with more context, written as if
`Fail.fail` returned a value to resume with:
''',
source='''\
fn parse_age(text: Str) -> Int / {Fail} {
  match str.parse_int(text) {
    Some(n) => n,
    None => Fail.fail("not a number: ${text}"),
  }
}

let age = handle parse_age("forty") with {
  Fail.fail(message) => resume(Fail.fail("reading the age: ${message}")),
}
Log.info("age: ${age}")
''',
rc=0,
fix=r'''
**Fix**: end the clause without `resume`: the clause's value becomes the
value of the whole `handle`. Re-raise the failure directly (`Fail.fail`
never returns, so it fits where an `Int` is expected), or give a fallback
value instead, as in `Fail.fail(message) => 0`:
''',
fix_code='''\
fn parse_age(text: Str) -> Int / {Fail} {
  match str.parse_int(text) {
    Some(n) => n,
    None => Fail.fail("not a number: ${text}"),
  }
}

let age = handle parse_age("forty") with {
  Fail.fail(message) => Fail.fail("reading the age: ${message}"),
}
Log.info("age: ${age}")
''',
),

dict(code="W3006",
meaning=r'''
The expression a `handle` handles is a function value that is not called
there: a name (`handle action with { ... }`), a field (`handle job.run
with { ... }`) or a lambda. Making or naming a function performs nothing;
what the function performs happens where it is called, and that is not
under this handler. So the handler handles nothing, and the `handle`'s
value is the function itself. (A handled *call* that returns a function,
such as `handle make_greeter("ada") with { ... }`, is not warned about:
the call may perform what the handler handles.) The label covers the
handled expression; the help shows the call.
''',
before=r'''
Often the program is also rejected, because the `handle` has the
function's type where the function's result was meant:
''',
source='''\
fn quiet(action: fn() -> Unit / {Log | e}) -> Unit / {e} {
  handle action with {
    Log.info(message) => resume(()),
  }
}
''',
fix=r'''
**Fix**: call the function under the handler, so that what it performs is
handled:
''',
fix_code='''\
fn quiet(action: fn() -> Unit / {Log | e}) -> Unit / {e} {
  handle action() with {
    Log.info(message) => resume(()),
  }
}
''',
),

dict(code="W3007",
meaning=r'''
A parameterised handler (`handle body with (p = init) { ... }`) has no
`return` clause, and its parameter cannot affect anything: no clause reads
it except to compute its next value in a `resume(result, next)` (a `next`
made only of names, operators and standard-library calls), though some
clause changes it. Without a `return` clause the handler's value is the
handled code's, so the final value of the state is thrown away: a running
total or a count kept this way is computed and lost. A state that a clause
reads otherwise (gives to the handled code with `resume(p, ...)`, tests in
an `if`, logs, returns) is not warned about. The label is on the
parameter's name, with a secondary label on a next value nothing reads.
''',
source='''\
fn paid_total(action: fn() -> a / {Pay | e}) -> a / {Pay | e} {
  handle action() with (total = 0) {
    Pay.pay(payee, cents, memo) => resume(Pay.pay(payee, cents, memo), total + cents),
  }
}
''',
rc=0,
fix=r'''
**Fix**: add a `return` clause that keeps the state beside the handled
code's value (the `return` clause sees the parameter's final value), and
say so in the result type:
''',
fix_code='''\
fn paid_total(action: fn() -> a / {Pay | e}) -> (a, Int) / {Pay | e} {
  handle action() with (total = 0) {
    Pay.pay(payee, cents, memo) => resume(Pay.pay(payee, cents, memo), total + cents),
    return(x) => (x, total),
  }
}
''',
),

dict(code="W3008",
meaning=r'''
In a handler without a `return` clause, the clause for an operation that
returns never names its `resume`, and its value has the operation's
result type, which is also the handler's type. Such a clause stops the
handled code at the operation, and its value becomes the value of the whole
`handle`; a value that would fit as the operation's result was almost
always meant to be given to `resume`, which continues the handled code with
it. A clause is not warned about when the handler has a `return` clause
(then the clauses' values are the handler's by design), when the operation
returns `Never`, when the clause ends by performing an operation that
never returns (such as `Fail.fail(...)`), or when its value has another
type than the operation's result (an early exit such as
`Found.found(x) => Some(x)`). The label covers the clause's body.

In a handler with a parameter, `return` clause or not, a clause that never
names its `resume` and whose value, of the parameter's type, is computed
from the parameter (`Gen.yield(x) => acc ++ [x]`, where `resume((), acc ++
[x])` was meant) is warned about too: it looks like the parameter's next
value, but it stops the handled code at its first operation. A clause that
gives the parameter back as it is (`Stop.stop() => acc`) stops on purpose
and is not warned about.
''',
source='''\
effect Ask {
  fn ask(question: Str) -> Int
}

fn answer(action: fn() -> Int / {Ask | e}) -> Int / {e} {
  handle action() with {
    Ask.ask(question) => 42,
  }
}
''',
rc=0,
fix=r'''
**Fix**: give the value to `resume` (with a handler parameter, add its next
value: `resume(value, next)`). If stopping the handled code is intended,
say so with a `return(x) => x` clause, which also silences the warning:
''',
fix_code='''\
effect Ask {
  fn ask(question: Str) -> Int
}

fn answer(action: fn() -> Int / {Ask | e}) -> Int / {e} {
  handle action() with {
    Ask.ask(question) => resume(42),
  }
}
''',
),

dict(code="E9001",
meaning=r'''
`writ check` could not read a file named on its command line: it does not
exist, the path is wrong, or reading it failed (for example for lack of
permission). The message includes the operating system's own description
of the failure, so its wording depends on the platform. The file is not
checked; its status in JSON output is `"unreadable"`, and the exit code is
2, even if other files were rejected.
''',
before=r'''
Suppose the program below is saved as `main.writ`, and the command line has
a typo in the file name: `writ check mian.writ`.
''',
source='let greeting = "hello"\n',
args=["mian.writ"],
rc=2,
lead="`writ check mian.writ` prints:",
fix=r'''
**Fix**: check the path (relative paths are relative to the current
directory) and that the file is readable, then run `writ check main.writ`
again.
''',
),

dict(code="E9002",
meaning=r'''
A path named on the command line of `writ check` is a directory. `writ
check` checks files, and does not look inside directories for programs. The
directory is not checked; its status in JSON output is `"unreadable"`, and
the exit code is 2.
''',
before=r'''
Suppose the program below is saved as `src/main.writ`, and the command is
`writ check src`.
''',
source='let greeting = "hello"\n',
files={"src/main.writ": 'let greeting = "hello"\n'},
args=["src"],
rc=2,
lead="`writ check src` prints:",
fix=r'''
**Fix**: name the `.writ` files themselves, for example
`writ check src/main.writ`, or let the shell list them:
`writ check src/*.writ`.
''',
),

dict(code="E9003",
meaning=r'''
A file's bytes are not valid UTF-8, the only text encoding Writ reads. This
usually means the file was saved in a legacy encoding such as Latin-1 or
Windows-1252, or is not a text file at all. The message gives the byte
offset (0-based) and line of the first invalid byte. A UTF-8 byte-order
mark at the start of a file is allowed and skipped. The file is not checked;
its status in JSON output is `"unreadable"`, and the exit code is 2.
''',
before=r'''
Suppose this program is saved as `main.writ` in the Latin-1 encoding, so
that the `é` is stored as the single byte `0xE9` instead of the two UTF-8
bytes `0xC3 0xA9`:
''',
source='let name = "Café"\n',
files={"main.writ": 'let name = "Café"\n'.encode("latin-1")},
rc=2,
fix=r'''
**Fix**: convert the file to UTF-8, for example by saving it again with
UTF-8 chosen as the encoding, or with `iconv -f latin1 -t utf-8 main.writ`.
''',
),

dict(code="E9004",
meaning=r'''
A file is larger than Writ accepts: at most 2 MiB (2097152 bytes) of source
per file. The limit keeps the time and memory spent checking a program
bounded (docs/performance.md, "Checking time on adversarial
inputs"). The file is not checked; its status in JSON output is
`"unreadable"`, and the exit code is 2.
''',
before=r'''
Suppose `main.writ` embeds a large table of data directly in the program, so
that the file is 3000000 bytes long:
''',
source='let table = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n',
show='let table = [0, 0, 0, 0, /* ... about a million more entries ... */ 0]\n',
files={"main.writ": ('let table = [' + '0, ' * 1000000)[:2999998] + ']\n'},
rc=2,
fix=r'''
**Fix**: make the source smaller. A Writ program is a single file, so it
cannot be split into several; but large data does not belong in the
program text: leave it out, and obtain it at run time through an effect
that the host provides, such as `Http` or `Records` (this is what the help
line means). Generated code that is this large should be generated in a
more compact form.
''',
),

dict(code="E9005",
meaning=r"""
A file Writ was asked to write cannot be written: the file `writ run
--pause-at ... --save FILE` saves a paused run to (its directory missing
or not writable, a full disk). The run had paused, but it was not saved,
and it ends there: the exit code is 2. What it did before the pause (its
audited operations) stays done.
""",
policy='[principal]\nid = "ada"\nrole = "employee"\n\n[grants.Log]\n\n[grants.Confirm]\n',
source='if Confirm.ask("Send the report?") { Log.info("sent") }\n',
args=["--policy", "policy.toml", "--pause-at", "Confirm", "--save", "missing/run.snap", "main.writ"],
cmd="run",
lead="`writ run --policy policy.toml --pause-at Confirm --save missing/run.snap main.writ` prints:",
rc=2,
fix=r"""
**Fix**: save to a directory that exists and that you can write to
(`--save run.snap`), then continue the run with `writ resume run.snap
--policy policy.toml --answer true`.
""",
),

dict(code="E4001",
meaning=r'''
An `Int` operation gave a result that does not fit in 64 bits: `Int` holds
the whole numbers from -9223372036854775808 to 9223372036854775807, and
Writ never wraps around silently. The arithmetic operators `+`, `-`, `*`,
`/` and `%` on `Int`s, prefix `-`, `math.abs` and `list.sum` stop the run
with this error instead (`/` overflows only when the smallest `Int` is
divided by `-1`). The message shows the operation with its operands, the
label is on the expression, and the note lists the calls that were
running. `Float` arithmetic does not overflow with an error: a result too
large for a `Float` is `inf`.
''',
before=r'''
Factorials grow fast: 20! is the largest that fits in an `Int`.
''',
source='''\
/// The factorial of `n`, for a table of combinations.
fn factorial(n: Int) -> Int {
  if n <= 1 { 1 } else { n * factorial(n - 1) }
}

Log.info("20! = ${factorial(20)}")
Log.info("25! = ${factorial(25)}")
''',
cmd="run",
rc=3,
fix=r'''
**Fix**: if the numbers really are that large, compute with `Float`
(convert with `math.to_float`), which reaches about 1.8e308 but keeps only
about 16 significant digits. Otherwise bound the input before computing
(here, reject `n > 20` with `Fail.fail` or return an `Option`), or use
`math.ipow` for powers, which returns `None` instead of overflowing:
''',
fix_code='''\
/// The factorial of `n`, as a Float: exact up to 20!, approximate beyond.
fn factorial(n: Int) -> Float {
  if n <= 1 { 1.0 } else { math.to_float(n) * factorial(n - 1) }
}

Log.info("20! = ${factorial(20)}")
Log.info("25! = ${factorial(25)}")
''',
),

dict(code="E4002",
meaning=r'''
An `Int` division `/` or remainder `%` had zero as its divisor. There is
no `Int` it could give, so the run stops. The message shows the operation
with its operands, such as `0 / 0`; the label is on the expression.
`Float` division follows IEEE 754 instead and does not stop the run:
`1.0 / 0.0` is `inf`, `-1.0 / 0.0` is `-inf`, and `0.0 / 0.0` and
`1.0 % 0.0` are `NaN`.
''',
before=r'''
The classic case is an average of a list that turns out to be empty:
''',
source='''\
/// The average order value, in cents.
fn average(orders: List[Int]) -> Int {
  list.sum(orders) / list.length(orders)
}

Log.info("this week: ${average([1250, 899, 4300])}")
Log.info("last week: ${average([])}")
''',
cmd="run",
rc=3,
fix=r'''
**Fix**: decide what the result is when the divisor is zero, and check for
it before dividing. When there is no sensible number, return an `Option`
and let the caller say what to do without one:
''',
fix_code='''\
/// The average order value, in cents; `None` when there are no orders.
fn average(orders: List[Int]) -> Option[Int] {
  match list.length(orders) {
    0 => None,
    count => Some(list.sum(orders) / count),
  }
}

match average([]) {
  Some(cents) => Log.info("last week: ${cents}"),
  None => Log.info("last week: no orders"),
}
''',
),

dict(code="E4003",
meaning=r'''
The program performed `Fail.fail(message)` with no handler of `Fail`
around it, so the failure reached the top level and ended the run. This is
what `Fail` is for: a program that cannot go on says why, and the host (for
`writ run`, the person running it) gets the message, which follows
`the program failed:`. The label is the `Fail.fail` that was performed, and
the note lists the calls that led to it. Whatever the program logged
before it is still printed. The checker lists `Fail` among the effects of
an accepted program (`effect Fail: Fail.fail at ...`), so `writ check`
shows every place a run can fail this way. The message is shown with
control, bidirectional and invisible characters escaped (`\u{1b}`), and
at most its first KiB (cut at a character boundary): a longer one is
followed by `…` and its length, `(30000000 bytes, shown shortened)`.
''',
before=r'''
Here a quantity typed by a user is not a number:
''',
source='''\
/// Parse a quantity typed by a user.
fn parse_quantity(text: Str) -> Int / {Fail} {
  match str.parse_int(str.trim(text)) {
    Some(n) if n > 0 => n,
    _ => Fail.fail("expected a positive whole number, found `${text}`"),
  }
}

let quantity = parse_quantity("two")
Log.info("ordering ${quantity} items")
''',
cmd="run",
rc=3,
fix=r'''
**Fix**: if the failure should end the run, nothing is wrong: the message
says why it stopped. To recover instead, handle `Fail` around the code
that may fail. A `Fail.fail` clause does not resume (the operation never
returns); its value becomes the value of the whole `handle`. Here the
handler turns the outcome into a `Result`, and the program decides what
to do with an error:
''',
fix_code='''\
/// Parse a quantity typed by a user.
fn parse_quantity(text: Str) -> Int / {Fail} {
  match str.parse_int(str.trim(text)) {
    Some(n) if n > 0 => n,
    _ => Fail.fail("expected a positive whole number, found `${text}`"),
  }
}

let quantity = handle Ok(parse_quantity("two")) with {
  Fail.fail(message) => Err(message),
}
match quantity {
  Ok(n) => Log.info("ordering ${n} items"),
  Err(message) => Log.info("not ordering: ${message}"),
}
''',
),

dict(code="E4004",
not_run=True,
cmd="run",
meaning=r'''
The machine running the program reached a state that a program accepted
by the checker can never reach, such as a call of a function that does not
exist. This is a bug in Writ, not in the program: rather than crash, Writ
stops the run and reports it. The message starts with `internal error:`
and names the state; the label, when there is one, is where the program
was. No program should produce this code, so there is no example.
''',
fix=r'''
**Fix**: report it, with the program and the full output of `writ run`.
A small program is much easier to diagnose: remove statements and
functions one at a time, running the program again after each, to find the
smallest one that still reports `E4004`, and say what it should have done.
Such a report might be as short as this program, which should print `6`:
''',
fix_code='''\
let total = list.fold([1, 2, 3], 0, fn(sum, n) { sum + n })
total
''',
),

dict(code="E4005",
meaning=r"""
A host operation is not allowed by the policy the program runs under
(`writ run --policy`): a payee not on the list, an amount over a cap, a URL
outside the allow-list, a record outside the grant's scope, a payment the
person did not confirm, an argument larger than the host's maximum for it
(see `docs/policy.md`, Argument sizes). Nothing was carried out, and the denial is written
to the audit log. This code ends the run when the grant says
`on_deny = "stop"` (the default); with `on_deny = "fail"` the program sees
`Fail.fail(reason)` instead, and may handle it. When the program does
handle `Fail` around the denied operation (a handler with a `Fail.fail`
clause that the failure would have reached), the help says that
`on_deny = "fail"` would have let that handler recover. See `docs/policy.md`.
""",
policy='[principal]\nid = "ada"\nrole = "employee"\n\n[grants.Log]\n\n[grants.Pay]\npayees = ["air-one.example"]\ncurrency = "EUR"\nmax_payment_cents = 50000\n',
source='let receipt = Pay.pay("attacker.example", 30000, "verification fee")\nLog.info("paid ${receipt.id}")\n',
args=["--policy", "policy.toml", "main.writ"],
cmd="run",
lead="`writ run --policy policy.toml main.writ` prints:",
rc=3,
fix=r"""
**Fix**: pay only whom the policy allows (or, if the person agrees, add the
payee to the policy); to let the program recover from a denial, set
`on_deny = "fail"` and handle `Fail`:
""",
fix_code='let receipt = Pay.pay("air-one.example", 30000, "flight A1-204")\nLog.info("paid ${receipt.id}")\n',
),

dict(code="E4006",
meaning=r"""
The host could not make the checks the policy asks for, so it refused to go
on: the store (a SQLite file, or a PostgreSQL database, holding the audit
log, ledger and records) could not be opened or created, or is of another
schema version; a file the policy names (a seed, recorded responses, the
store's `password_file`) could not be read, or the variable its
`password_env` names is not set; the store's URL holds a password; an
audit record could not be committed before an operation's result
returned; or other runs held the store's write lock for longer than the
host waits for it (10 s, or the policy's `[store] lock_wait`; the message
says `the store is busy`). A wait cut short by the run's time limit ends
the run with `E5005` instead. Failing closed, nothing more is carried
out, and a transaction that failed wrote nothing (a payment is in the
ledger and the audit log together, or in neither); when this happens
before the run, nothing runs at all.

During a run the message says which operation was denied (`the audit
record of Http.get could not be written (...); the operation was
denied`, `the payment could not be recorded (...); nothing was paid`) and,
in the brackets, what failed. A store on PostgreSQL adds its own causes
([policy.md](policy.md#bounds-and-failures)):

- the server cannot be reached, or refuses the connection:
  `cannot open the store postgres://...: ...` (at most `connect_timeout`,
  5 s by default, is spent trying);
- the connection is lost in the middle of a transaction (the server
  stopped or restarted): `the connection to the store was lost: ...; what
  the transaction wrote was rolled back`; the next operation connects
  again;
- the lock is busy, as on SQLite: `the store is busy: other runs held its
  write lock for over 10000 ms (...)`;
- a statement ran longer than `statement_timeout` on the server, which
  cancelled it: `the store took longer than its statement_timeout (...)`;
  or the server did not answer at all: `the store did not answer within
  its statement_timeout (10000 ms) beyond the lock wait; the connection
  was dropped and what the transaction wrote was rolled back`;
- the store is of schema version 2: `expected a store of schema version
  3, found version 2: a migration brings it up to date, in place`.
""",
policy='[principal]\nid = "ada"\nrole = "employee"\n\n[store]\nseed = "org.sql"\n\n[grants.Log]\n',
source='Log.info("hello")\n',
args=["--policy", "policy.toml", "main.writ"],
cmd="run",
lead="`writ run --policy policy.toml main.writ` prints:",
rc=3,
fix=r"""
**Fix**: make the files the policy names readable (here, create `org.sql`
next to the policy, or remove the `seed` line), and the store's directory
writable. For a store on PostgreSQL, make the server reachable from the
host and give the role's password (`password_file`, `password_env` or
`PGPASSWORD`); migrate a store of version 2 with `writ db migrate --db
URL`; for a busy or slow store, raise `lock_wait` or `statement_timeout`
(each at most 60 s):
""",
fix_policy='[principal]\nid = "ada"\nrole = "employee"\n\n[grants.Log]\n',
fix_code='Log.info("hello")\n',
),


dict(code="E4007",
meaning=r"""
A value the host passed for an input does not have the input's declared
type, so nothing was run. The message names the input and the path inside
it (`request.legs[2].to`, `stock["pens"]`), then what the type expects and
what the JSON value holds: a value of another kind (`"500"` for an
`Int`), a number that is not a whole number from -2^63 to 2^63 - 1 for an
`Int`, `null` for a type that is not an `Option` (or `()`), a record's
field that is missing, a field the record type does not have, or a tuple
of another length. See [embedding: inputs](embedding.md#inputs) for how
each type is written in JSON.
""",
before=r"""
With the values file `inputs.json`:

```json
{ "request": { "to": "BER", "budget_cents": "500" } }
```
""",
files={"main.writ": 'Log.info("to ${request.to}")\nrequest.budget_cents\n', "inputs.json": '{ "request": { "to": "BER", "budget_cents": "500" } }\n'},
show='Log.info("to ${request.to}")\nrequest.budget_cents\n',
args=["--input-type", "request={ to: Str, budget_cents: Int }", "--inputs", "inputs.json", "main.writ"],
cmd="run",
lead="`writ run --input-type 'request={ to: Str, budget_cents: Int }' --inputs inputs.json main.writ` prints:",
rc=3,
fix=r"""
**Fix**: pass a value of the declared type (here, `"budget_cents": 500`),
or declare the type the host really sends.
""",
),

dict(code="E4008",
meaning=r"""
The host passed no value for an input the program was checked with, or a
value for an input it was not checked with, so nothing was run. Every
declared input needs a value (an `Option` input's may be `null`), and a
value names a declared input.
""",
source='Log.info("to ${destination}")\n',
args=["--input-type", "destination=Str", "main.writ"],
cmd="run",
lead="`writ run --input-type destination=Str main.writ` prints:",
rc=3,
fix=r"""
**Fix**: give every declared input a value (`writ run --input-type
destination=Str --inputs inputs.json main.writ`, with `{ "destination":
"BER" }` in `inputs.json`), and declare every input a value is given for.
""",
),

dict(code="E4009",
not_run=True,
meaning=r"""
Bytes given as the snapshot of a paused run are not one that can be
restored: they are truncated, damaged or crafted, were written by another
version of the snapshot format or of Writ, were taken of another program
or for another person, were sealed by another store (`writ resume`,
`Engine::restore`: each snapshot is sealed with its store's secret key),
or were resumed already (each snapshot resumes once, so that a saved run
cannot be replayed). Nothing was restored, and nothing ran. A run of an
approved plan is refused when it is saved (`Pending::to_bytes`, `writ run
--approve ... --save`): a snapshot does not hold how far through its plan
the run is, and restored it would no longer be bound to the plan; reply to
it where it is instead. The message
says what was expected and what was found, for example `snapshot
refused: expected a snapshot not resumed before, but found one that was
resumed already (each snapshot resumes once)`, or, from the runtime
(`writ_runtime::restore`), at which byte. An example needs a run saved by
an earlier command (`writ run --pause-at Confirm --save run.snap`), so
there is none here: [the guide](embedding.md#from-the-command-line-2)
shows the two commands.
""",
fix=r"""
**Fix**: restore a snapshot against the program it was taken of, with the
same version of Writ, from the bytes exactly as they were written; a
snapshot that cannot be restored cannot be repaired: start the run again.
The program itself needs no change; one that runs again from the start
should say what it already did, so that running it twice is safe:
""",
fix_code='''\
/// Sends the reminder once: a run started again skips what is done.
let done = ["alice"]
let people = ["alice", "bob"]
let todo = list.filter(people, fn(p) { !list.contains(done, p) })
Log.info("reminders to send: ${list.length(todo)}")
''',
),

dict(code="E4010",
not_run=True,
cmd="run",
meaning=r"""
A host replied to an operation it paused a run at (see
[embedding: pausing at operations](embedding.md#pausing-at-operations))
with an answer that does not fit it: a JSON value that is not of the
operation's result type (`Confirm.ask: expected Bool, found 1`), or an
answer to an operation the host may not answer itself (`Pay.pay`,
`Records.read`, `Records.list`, `Audit.note` and `Log.info` are the
store's and the run's own, and only the engine carries them out). The run
was not resumed: the operation is still pending, and the host can reply
again. On the command line, `writ resume run.snap --policy policy.toml
--answer 1` replies so to a saved run paused at a `Confirm.ask`; it exits
with 3, and the saved run can be resumed with another reply.
""",
fix=r"""
**Fix**: answer with a value of the type `Pending::answer_type` gives
(`true` for `Confirm.ask`), or reply `CarryOut` to let the engine carry
the operation out, `Fail` or `Refuse`. The program needs no change; the
types of a capability's results are in its interface, the values a host
may answer with:
""",
fix_code='''\
/// `Confirm.ask` answers a `Bool`, `Clock.now` an `Int`, `Http.get` a `Str`.
let answers = (true, 1700000000000, "<html></html>")
Log.info("${answers}")
''',
),

dict(code="E4011",
meaning=r"""
A run was asked to pause at a capability or operation the engine does not
have (`writ run --pause-at Wether`, `Confirm.tell`; from Rust,
`PauseAt::Only`), so nothing was run. A pause point is a capability's name
as the policy grants it (`Confirm`, `Http`, an embedder's `Weather`), or
one of its operations after a dot (`Http.post`). The message lists the
capabilities there are.
""",
policy='[principal]\nid = "ada"\nrole = "employee"\n\n[grants.Log]\n\n[grants.Confirm]\n',
source='if Confirm.ask("Send the report?") { Log.info("sent") }\n',
args=["--policy", "policy.toml", "--pause-at", "Confirmm", "--save", "run.snap", "main.writ"],
cmd="run",
lead="`writ run --policy policy.toml --pause-at Confirmm --save run.snap main.writ` prints:",
rc=3,
fix=r"""
**Fix**: spell the capability as the list in the message does (here
`--pause-at Confirm`), and an operation as its interface declares it.
""",
),

dict(code="E4012",
meaning=r"""
A run replaying recorded reads (`writ run --replay reads.json`, or
`ReadMode::Replay` from Rust) performed a read the recording does not
hold: an operation with other arguments, or more reads of it than were
recorded. The run was stopped before that read, with what it did until
then kept (and audited). Reads are matched by operation and arguments,
in order among equal ones; the recording is made by a run with
`--record` ([embedding: recording reads](embedding.md#recording-and-replaying-reads)).
""",
before=r"""
With a recording that holds no reads, `reads.json`:

```json
{ "format": 1, "reads": [] }
```
""",
policy='[principal]\nid = "ada"\nrole = "employee"\n\n[grants.Log]\n\n[grants.Clock]\n',
files={"main.writ": 'Log.info("now: ${Clock.now()}")\n', "reads.json": '{ "format": 1, "reads": [] }\n'},
show='Log.info("now: ${Clock.now()}")\n',
args=["--policy", "policy.toml", "--replay", "reads.json", "main.writ"],
cmd="run",
lead="`writ run --policy policy.toml --replay reads.json main.writ` prints:",
rc=3,
fix=r"""
**Fix**: record the run again (`writ run --policy policy.toml --record
reads.json main.writ`) after changing the program, or run it live (without
`--replay`).
""",
),

dict(code="E4013",
not_run=True,
cmd="run",
meaning=r"""
A run of a plan the person approved (`RunOptions::approved`, see
[embedding: plans](embedding.md#plans-the-person-approves-what-will-be-done))
performed an act the plan does not hold next: an act not in the plan,
one with other arguments, the acts in another order, or one more than the
plan approved. The run was stopped before the act: nothing of it was
carried out, and the attempt is in the audit log as a denial. The
message names the act the plan held next (or `no more acts`) and the one
the program performed. A run replays the plan's reads by default, so a
program that decides from what it reads makes the same acts; one that
takes another path (it reads the clock to decide, say) deviates.
""",
fix=r"""
**Fix**: make a new plan of the program as it is, show it to the person,
and run the plan they approve. A program whose acts follow only from what
it reads (and from its inputs) executes its plan exactly:
""",
fix_code='''\
/// The acts follow from the prices read: replayed, the same choice.
let prices = [41200, 38900, 39500]
let cheapest = list.fold(prices, 100000, fn(m, p) { if p < m { p } else { m } })
Log.info("cheapest: ${cheapest}")
''',
),

dict(code="E4014",
not_run=True,
cmd="run",
meaning=r"""
A plan given as approved does not apply to this run, so nothing was run:
it was made of another program (its hash differs), under another policy
(or this policy changed since), for another person, with other inputs'
values, or it was executed already (an approved plan executes once: the
store records it with the approval). A plan is made and approved for one
run of one program, by one person, under one policy.
""",
fix=r"""
**Fix**: make a new plan of this program under this policy, with these
inputs, show it to the person, and run the plan they approve. The program
needs no change:
""",
fix_code='''\
Log.info("planned once, approved once, run once")
''',
),

dict(code="E4015",
not_run=True,
cmd="run",
meaning=r"""
The audit log does not verify: a record was changed, removed or put in
after it was written, or the ledger does not match the records of its
payments. Each record holds the hash of the one before it, so a change
anywhere breaks the chain from there on; the message names the first
record where it breaks. An embedder sees this code when it verifies the
log (the Python package's `Engine.verify()` raises `AuditError` with it,
[python.md](python.md#the-audit-log)); `writ audit verify` says the same
in words and exits with 1. Nothing a program does can cause it: only a
change to the store from outside Writ (to its file, or to its database).
""",
fix=r"""
**Fix**: treat the store as tampered with: keep a copy for
investigation, restore the store from a backup, and compare the log with
the head you kept (`writ audit head`, then `writ audit verify --head
COUNT:HASH`). Programs need no change; this one writes one audited
record:
""",
fix_code='''\
Log.info("one record, chained to the one before")
''',
),

dict(code="E5001",
meaning=r'''
The program ran for more steps than its fuel allows. Every step of the
machine that runs a program costs one unit of fuel, and so does work inside
a single operation that grows with the data (one unit per element visited,
compared or made, one per 16 bytes of text: sorting a huge list, comparing
two huge values with `==`, `json.stringify`, `str.replace`; see
[limits of a run](language.md#limits-of-a-run)), so fuel bounds the
work a run may do whatever the program does: above all, it stops a loop
that never ends. The default is 1000000000 units; `--limit fuel=N` sets
another. (In practice a run of the default fuel can also be stopped first
by the time limit, [E5005](#e5005-time-limit-reached).) The label is where
the program was when the fuel ran out, and the note lists the calls that
were running.
''',
before=r'''
Here a count of pages never reaches its end: 130 lines minus 40 per page
goes 90, 50, 10, -30, ..., and never equals 0. The run is given a million
steps:
''',
source='''\
/// How many pages `lines` lines fill, `per_page` lines to a page.
fn pages(lines: Int, per_page: Int, count: Int) -> Int {
  if lines == 0 { count } else { pages(lines - per_page, per_page, count + 1) }
}

Log.info("120 lines: ${pages(120, 40, 0)} pages")
Log.info("130 lines: ${pages(130, 40, 0)} pages")
''',
cmd="run",
args=["--limit", "fuel=1000000", "main.writ"],
lead="`writ run --limit fuel=1000000 main.writ` prints:",
rc=4,
fix=r'''
**Fix**: if the loop should end, make sure its condition is reached: a
countdown should stop at `<= 0` rather than `== 0` when it steps by more
than 1. If the program is right and only needs more steps, raise the
limit with `--limit fuel=N` (and `time`, which may stop a long run first).
''',
fix_code='''\
/// How many pages `lines` lines fill, `per_page` lines to a page.
fn pages(lines: Int, per_page: Int, count: Int) -> Int {
  if lines <= 0 { count } else { pages(lines - per_page, per_page, count + 1) }
}

Log.info("120 lines: ${pages(120, 40, 0)} pages")
Log.info("130 lines: ${pages(130, 40, 0)} pages")
''',
),

dict(code="E5002",
meaning=r'''
The program needed more memory than its limit allows. Memory counts the
bytes of the values the program holds (strings, lists, maps, records and
the rest) plus the machine's own stacks. The default limit is 512 MiB;
`--limit memory=64M` sets another (with `K`, `M` or `G`, or a number of
bytes). The limit is checked before every allocation whose size depends on
the program's data, so a huge list or string is refused before it is
built; the message gives the limit and what the program would have needed,
in bytes, and the label is the expression that needed it.
''',
before=r'''
Building a list of a hundred million numbers just to add them up needs
well over the default limit:
''',
source='''\
let n = 100000000
let total = list.range(1, n + 1) |> list.sum
Log.info("1 + 2 + ... + ${n} = ${total}")
''',
cmd="run",
rc=4,
fix=r'''
**Fix**: do not build what is only used once: compute the result as you
go, in a loop written as a tail call (which runs in constant memory, though
a hundred million steps take time: see
[E5001](#e5001-fuel-exhausted)), or, as here, with a formula. A string that
grows by doubling, or a list that collects every intermediate result, is
the same problem. If the program really needs that much memory, raise the
limit with `--limit memory=...`.
''',
fix_code='''\
let n = 100000000
let total = n * (n + 1) / 2
Log.info("1 + 2 + ... + ${n} = ${total}")
''',
),

dict(code="E5003",
meaning=r'''
Calls were nested deeper than the limit allows: a function called a
function that called a function, and so on, without returning. The
default limit is 10000000 nested calls; `--limit depth=N` sets another. It
is almost always a recursion whose call is not the last thing the function
does, so each call waits for the next one: here
`n + sum_to(n - 1)` must still add `n` when the inner call returns. A call
that is the last thing a function does (a tail call) replaces the caller
instead, so a loop written that way runs in constant depth however many
times it goes round. The note shows the recursion as one line with the
number of calls. Each waiting call also takes memory, so a very deep
recursion can reach the memory limit
([E5002](#e5002-memory-limit-reached)) first.
''',
before=r'''
Here the run is limited to 100000 nested calls:
''',
source='''\
/// The sum of the whole numbers from 1 to `n`.
fn sum_to(n: Int) -> Int {
  if n == 0 { 0 } else { n + sum_to(n - 1) }
}

Log.info("up to 1000: ${sum_to(1000)}")
Log.info("up to 200000: ${sum_to(200000)}")
''',
cmd="run",
args=["--limit", "depth=100000", "main.writ"],
lead="`writ run --limit depth=100000 main.writ` prints:",
rc=4,
fix=r'''
**Fix**: make the recursive call a tail call, by passing what is left to
do as an argument (an accumulator), often in a local helper function.
`list.fold`, `list.map` and the other list functions are written this way
already. Raise the limit with `--limit depth=N` only for data that is
really that deeply nested.
''',
fix_code='''\
/// The sum of the whole numbers from 1 to `n`.
fn sum_to(n: Int) -> Int {
  fn go(k: Int, total: Int) -> Int {
    if k == 0 { total } else { go(k - 1, total + k) }
  }
  go(n, 0)
}

Log.info("up to 1000: ${sum_to(1000)}")
Log.info("up to 200000: ${sum_to(200000)}")
''',
),

dict(code="E5004",
meaning=r'''
The program wrote more output than its limit allows. Output is what the
program writes through `Log` (each `Log.info` line, counting its line
break), and the limit keeps a run from flooding the terminal or the log
of whoever runs it. The default is 1 MiB; `--limit output=N` sets another
(with `K`, `M` or `G`, or a number of bytes). The line that would pass the
limit is not written; the lines before it are. The same bound holds, each
on its own, for the final value's display and for its JSON (`--format
json`, an embedder's `value_json`): a value whose display or JSON would
pass it is refused whole, never cut, and the run ends with this code. So
is a value nested so deep that writing it would hold more than 16 times
the limit (at least 1 MiB) in containers still open, though its text
might fit ("nested deeper").
''',
before=r'''
A program that logs a line for each item it processes soon reaches the
limit: this one would stop after about 35000 orders with the default
limit, and stops after three lines with a limit of 100 bytes:
''',
source='''\
/// Check the orders numbered `next` to `last`; count the valid ones.
fn check_orders(next: Int, last: Int, valid: Int) -> Int / {Log} {
  if next > last {
    valid
  } else {
    Log.info("checking order ${next} of ${last}")
    let ok = next % 7 != 0
    check_orders(next + 1, last, if ok { valid + 1 } else { valid })
  }
}

let valid = check_orders(1, 50000, 0)
Log.info("${valid} of 50000 orders are valid")
''',
cmd="run",
args=["--limit", "output=100", "main.writ"],
lead="`writ run --limit output=100 main.writ` prints:",
rc=4,
fix=r'''
**Fix**: log what the person running the program needs to read: a
summary, the exceptions, or progress every thousand items, rather than a
line per item. Raise the limit with `--limit output=...` only when the
output itself is the result.
''',
fix_code='''\
/// Check the orders numbered `next` to `last`; count the valid ones.
fn check_orders(next: Int, last: Int, valid: Int) -> Int {
  if next > last {
    valid
  } else {
    let ok = next % 7 != 0
    check_orders(next + 1, last, if ok { valid + 1 } else { valid })
  }
}

let valid = check_orders(1, 50000, 0)
Log.info("${valid} of 50000 orders are valid")
''',
),

dict(code="E5005",
meaning=r'''
The program ran for longer than its time limit, measured by the clock
(wall-clock time, not processor time). The default is 10 seconds;
`--limit time=2s` sets another (with `ms`, `s` or `m`). The time is checked
every few thousand steps, and every few thousand units of work inside a
single operation (sorting a huge list, comparing or printing a huge value),
so the run stops soon after the limit passes, within a long library call
too; the label is where the program was at that moment,
which for a loop can be anywhere in it. A host operation that waits (an
`Http` request, a write waiting for the store's lock, a question to the
person, which is then refused) stops waiting when the time is up, and the
run ends with this error at that operation. A run that is slow because it does
a lot of work can reach this limit before the fuel limit
([E5001](#e5001-fuel-exhausted)), so raise both when a program needs more.
''',
before=r'''
Putting a thousand copies of a hundred thousand ticket numbers in order is
more than a run given a tenth of a second can do (each comparison of two
copies reads them through):
''',
source='''\
/// The draw's ticket numbers, printed in a book of a thousand copies, and
/// the copies put in order.
let numbers = list.range(1, 100001)
let book = list.map(list.range(0, 1000), fn(copy) { numbers })
let ordered = list.sort(book)
Log.info("${list.length(ordered)} copies in order")
''',
cmd="run",
args=["--limit", "time=100ms", "main.writ"],
lead="`writ run --limit time=100ms main.writ` prints:",
rc=4,
fix=r'''
**Fix**: make the program do less: only the work needed now (here, one
copy, since the thousand are the same, of one batch of tickets per run),
or a better method (a formula, or a map instead of searching a list again
and again). If the work is what is wanted, raise the limits, for example
`--limit time=1m,fuel=10000000000`:
''',
fix_code='''\
/// The numbers of the next batch of tickets, in order: one copy is enough.
let first = 1
let numbers = list.range(first, first + 1000)
let ordered = list.sort(numbers)
Log.info("${list.length(ordered)} numbers in order, from ${first}")
''',
),

dict(code="E5006",
not_run=True,
cmd="run",
meaning=r'''
The host running the program cancelled the run before it ended. A program
that embeds Writ (through `writ::run_source`, giving it an `Arc<AtomicBool>`)
can stop a run from another thread, for example because the person who
started it pressed Stop, or the request it served was abandoned. The
machine sees the cancellation every few thousand steps, and every few
thousand units of work inside a single long operation (a library call
sorting a huge list, `<` between two huge values), and ends the run there;
the label is where the program was. The `writ` command never
cancels a run, so no command produces this code, and there is no example.
''',
fix=r'''
**Fix**: nothing in the program is wrong, and a cancelled run is not
retried by itself: run the program again if its result is still wanted. If
runs are cancelled because they take too long, make each run do less, for
example one batch of the work at a time, saying what is left:
''',
fix_code='''\
/// Orders are checked 100 at a time: each run checks one batch.
let first = 1
let batch = list.range(first, first + 100)
let valid = list.filter(batch, fn(order) { order % 7 != 0 })
Log.info("orders ${first} to ${first + 99}: ${list.length(valid)} valid")
Log.info("next run: start at order ${first + 100}")
''',
),
dict(code="E6001",
meaning=r"""
A policy file (`--policy`) is not valid TOML, so nothing in it can be
trusted: the check stops, nothing is granted, and `writ` exits with 2. The
message is the TOML parser's, at the place it gave up. Policies are
described in `docs/policy.md`.
""",
policy='[principal]\nid = "e1001"\nrole = employee\n',
source='Log.info("hello")\n',
args=["--policy", "policy.toml", "main.writ"],
lead="`writ check --policy policy.toml main.writ` prints:",
rc=2,
fix=r"""
**Fix**: write the value as TOML does; strings are in double quotes:
""",
fix_policy='[principal]\nid = "e1001"\nrole = "employee"\n\n[grants.Log]\n',
fix_code='Log.info("hello")\n',
),

dict(code="E6002",
meaning=r"""
A policy section has a key it does not know. A misspelt key is an error
rather than ignored, so that a limit or a scope the person meant to set is
never silently missing. The message lists the keys the section has, and
the help offers the closest one.
""",
policy='[principal]\nid = "e1001"\nrole = "employee"\n\n[limits]\nmemry = "64M"\n\n[grants.Log]\n',
source='Log.info("hello")\n',
args=["--policy", "policy.toml", "main.writ"],
lead="`writ check --policy policy.toml main.writ` prints:",
rc=2,
fix=r"""
**Fix**: use the key the help names:
""",
fix_policy='[principal]\nid = "e1001"\nrole = "employee"\n\n[limits]\nmemory = "64M"\n\n[grants.Log]\n',
fix_code='Log.info("hello")\n',
),

dict(code="E6003",
meaning=r"""
A policy value has the wrong type or is out of range: a string where a
number belongs, a negative amount, a currency that is not three capital
letters, a `scope` that does not exist, an allow-list URL that is not a
plain `http(s)://host/path` (user information, a non-canonical IP address
and the like are refused, since they could make one host look like
another), or a limit `writ` cannot read.
""",
policy='[principal]\nid = "e1001"\nrole = "employee"\n\n[grants.Log]\n\n[grants.Records]\nscope = "everyone"\n',
source='Log.info("hello")\n',
args=["--policy", "policy.toml", "main.writ"],
lead="`writ check --policy policy.toml main.writ` prints:",
rc=2,
fix=r"""
**Fix**: use one of the values the message lists:
""",
fix_policy='[principal]\nid = "e1001"\nrole = "employee"\n\n[grants.Log]\n\n[grants.Records]\nscope = "self"\n',
fix_code='Log.info("hello")\n',
),

dict(code="E6004",
meaning=r"""
A policy grants a capability the host does not provide. The host's
capabilities are `Http`, `Pay`, `Records`, `Audit`, `Log`, `Clock` and
`Confirm`; a grant for anything else (often a misspelling) is an error,
never ignored.
""",
policy='[principal]\nid = "e1001"\nrole = "employee"\n\n[grants.Log]\n\n[grants.Htp]\nallow = ["https://air-one.example/offers"]\n',
source='Log.info("hello")\n',
args=["--policy", "policy.toml", "main.writ"],
lead="`writ check --policy policy.toml main.writ` prints:",
rc=2,
fix=r"""
**Fix**: name the capability as the host spells it:
""",
fix_policy='[principal]\nid = "e1001"\nrole = "employee"\n\n[grants.Log]\n\n[grants.Http]\nallow = ["https://air-one.example/offers"]\n',
fix_code='Log.info("hello")\n',
),

dict(code="E6005",
meaning=r"""
A policy lacks a key it must have: the principal's `id` or `role`, or a
grant's scope (`payees`, `currency` and `max_payment_cents` for `Pay`,
`scope` for `Records`, `allow` or `recorded` for `Http`). A grant is never
given a scope by default: without one it would allow too much.
""",
policy='[principal]\nid = "e1001"\n\n[grants.Log]\n',
source='Log.info("hello")\n',
args=["--policy", "policy.toml", "main.writ"],
lead="`writ check --policy policy.toml main.writ` prints:",
rc=2,
fix=r"""
**Fix**: add the key the message names:
""",
fix_policy='[principal]\nid = "e1001"\nrole = "employee"\n\n[grants.Log]\n',
fix_code='Log.info("hello")\n',
),

dict(code="E4016",
meaning=r"""
An assertion of the `assert` namespace did not hold, and the run stopped
at it: `assert.eq(actual, expected)` found two different values,
`assert.that(condition, message)` a false condition, `assert.some` a
`None`, `assert.fails` a call that returned instead of failing, or the
program called `assert.fail(message)`. The message names what was
expected and what was found; for `assert.eq` on structures it also says
where they first differ (`at [1].price`). Assertions are how tests check
results ([testing](testing.md)), and work in any program. Unlike
`Fail.fail`, an assertion's failure is not an effect: no handler can
catch it, so a test cannot hide its own failure.
""",
source='''\
fn total(prices: List[Int]) -> Int {
  list.fold(prices, 0, fn(sum, p) { sum + p })
}

assert.eq(total([250, 100]), 350)
assert.eq(total([250, 100, 5]), 350)
''',
cmd="run",
rc=3,
fix=r"""
**Fix**: decide which side is wrong. If the program is, fix it; if the
expectation is, correct it:
""",
fix_code='''\
fn total(prices: List[Int]) -> Int {
  list.fold(prices, 0, fn(sum, p) { sum + p })
}

assert.eq(total([250, 100]), 350)
assert.eq(total([250, 100, 5]), 355)
''',
),

dict(code="E7001",
meaning=r"""
`writ test` cannot use a test as written, and the test fails without
running ([testing](testing.md)):

- a `*_test.toml` file that is not valid TOML, has a key the format does
  not have or lacks one it needs (`name`, `program`, `[test.expect]` with
  `outcome`); a test in it that names a policy, inputs or replay file
  that cannot be read, a code that does not exist, an operation the host
  does not have or a decision other than `allowed` and `denied`, or
  needs a policy it does not name; a test whose store cannot be opened;
- a test function whose doc comment has an `Expect:` line without a
  code, two `Expect:` lines, or a `Limits:` line that does not parse;
- a tested file (`NAME.writ` beside `NAME_test.writ`) that defines a
  top-level `fn` or `let` named like a standard-library namespace, which
  would answer the tests' calls of it.
""",
files={"main_test.writ": '''\
/// Expect: division by zero
fn test_average_of_nothing() {
  let n = 10 / list.length([])
}
'''},
source='''\
/// Expect: division by zero
fn test_average_of_nothing() {
  let n = 10 / list.length([])
}
''',
args=["main_test.writ"],
cmd="test",
lead="`writ test main_test.writ` prints:",
fix=r"""
**Fix**: write the code the test must stop with (`writ explain CODE`
tells what each means):
""",
fix_code='''\
/// Expect: E4002
fn test_average_of_nothing() {
  let n = 10 / list.length([])
}
''',
),

dict(code="E7002",
meaning=r"""
A function of a test file whose name starts with `test_` takes
parameters. `writ test` runs each test by calling it with no arguments,
so it cannot run this one. Helpers that take parameters need another
name.
""",
files={"main_test.writ": '''\
fn test_price(cents: Int) {
  assert.that(cents > 0, "a positive price")
}
'''},
source='''\
fn test_price(cents: Int) {
  assert.that(cents > 0, "a positive price")
}
''',
args=["main_test.writ"],
cmd="test",
lead="`writ test main_test.writ` prints:",
fix=r"""
**Fix**: give the helper another name, and call it from tests that take
nothing:
""",
fix_code='''\
fn check_price(cents: Int) {
  assert.that(cents > 0, "a positive price")
}

fn test_prices() {
  check_price(250)
  check_price(1)
}
''',
),

dict(code="E7003",
meaning=r"""
A test ran, and what happened is not what it expects: a test function
whose doc comment says `Expect: CODE` finished, or a test of a whole
program (a `[[test]]` of a `*_test.toml` file) found another ending, code,
value, `Log` lines, operations or audit records than its `[test.expect]`
states. Each difference is one diagnostic, and the run's own error, if it
stopped with another, is shown after them ([testing](testing.md)).
""",
files={"main_test.writ": '''\
fn safe_ratio(a: Int, b: Int) -> Int {
  if b == 0 { 0 } else { a / b }
}

/// Expect: E4002
fn test_zero_divisor() {
  safe_ratio(1, 0)
}
'''},
source='''\
fn safe_ratio(a: Int, b: Int) -> Int {
  if b == 0 { 0 } else { a / b }
}

/// Expect: E4002
fn test_zero_divisor() {
  safe_ratio(1, 0)
}
''',
args=["main_test.writ"],
cmd="test",
lead="`writ test main_test.writ` prints:",
fix=r"""
**Fix**: if the program is right, the expectation is out of date: state
what it does now. Here the function no longer divides by zero, so the
test checks its value instead:
""",
fix_code='''\
fn safe_ratio(a: Int, b: Int) -> Int {
  if b == 0 { 0 } else { a / b }
}

fn test_zero_divisor() {
  assert.eq(safe_ratio(1, 0), 0)
}
''',
),

dict(code="E7004",
meaning=r"""
`writ test` found no test to run: the files it was given (or found in the
directories it was given, as `*_test.writ` and `*_test.toml`) hold no
function whose name starts with `test_` and no `[[test]]`, or none whose
name contains the `--filter` text. It exits with 1, so a grader does not
mistake an empty submission for a passing one.
""",
files={"main_test.writ": '''\
fn checks_the_total() {
  assert.eq(list.sum([1, 2]), 3)
}
'''},
source='''\
fn checks_the_total() {
  assert.eq(list.sum([1, 2]), 3)
}
''',
args=["main_test.writ"],
cmd="test",
lead="`writ test main_test.writ` prints:",
fix=r"""
**Fix**: name each test `test_...` (and each test file `..._test.writ`
when `writ test` searches a directory):
""",
fix_code='''\
fn test_total() {
  assert.eq(list.sum([1, 2]), 3)
}
''',
),

dict(code="E7005",
meaning=r"""
A function of a test file is named almost like a test, but not `test_...`
(`testTotal`, `tests_total`, `tset_total`, `tst_total`): `writ test` would
never run it, and a broken program would pass unnoticed. Only a function
that takes nothing and declares no result (or `()`), as a test does, is
taken for one; a helper that makes a value, with its result type
written, is left alone.
""",
files={"main_test.writ": '''\
fn testTotal() {
  assert.eq(list.fold([250, 100], 0, fn(s, p) { s + p }), 350)
}
'''},
source='''\
fn testTotal() {
  assert.eq(list.fold([250, 100], 0, fn(s, p) { s + p }), 350)
}
''',
args=["main_test.writ"],
cmd="test",
lead="`writ test main_test.writ` prints:",
fix=r"""
**Fix**: name it as a test, `test_` and the rest in lower case:
""",
fix_code='''\
fn test_total() {
  assert.eq(list.fold([250, 100], 0, fn(s, p) { s + p }), 350)
}
''',
),

]
