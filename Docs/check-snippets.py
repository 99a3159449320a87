#!/usr/bin/env python3
"""Checks that the code the DocC articles show is the code the snippet tests compile and run.

    Docs/check-snippets.py            # from anywhere; exits 1 and lists every mismatch

An article marks a code block as a snippet with an HTML comment on the line before its fence:

    <!-- snippet: hls-recorder -->
    ```swift
    ...
    ```

and a test in Tests/DocSnippetTests holds the same code between two marker comments:

    // snippet: hls-recorder
    ...
    // end snippet

The block must equal the marked region once both are dedented (trailing spaces ignored).
`import` lines at the top of the block are not compared; each must name a module the test file
imports. Every marked region must be shown by exactly one article block, and every name is
marked once: a snippet cannot drift from compiled code, and no tested snippet is left unshown.
"""
import pathlib
import re
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ROOT / "Tests" / "DocSnippetTests"
CATALOGS = sorted(ROOT.glob("Sources/*/*.docc")) + [ROOT / "Fixtures" / "H264Fixtures.docc"]

BEGIN = re.compile(r"^\s*// snippet: ([a-z0-9][a-z0-9-]*)\s*$")
END = re.compile(r"^\s*// end snippet\s*$")
ARTICLE_MARK = re.compile(r"^\s*<!-- snippet: ([a-z0-9][a-z0-9-]*) -->\s*$")
IMPORT = re.compile(r"^import (\w+)\s*$")


def normalise(lines):
    text = textwrap.dedent("\n".join(line.rstrip() for line in lines))
    return text.strip("\n").split("\n")


def test_snippets(errors):
    """name -> (lines, file, line number, imported modules)"""
    found = {}
    for path in sorted(TESTS.glob("*.swift")):
        lines = path.read_text().split("\n")
        imports = {m.group(1) for line in lines if (m := IMPORT.match(line))}
        current = None
        for number, line in enumerate(lines, 1):
            if m := BEGIN.match(line):
                if current:
                    errors.append(f"{path.relative_to(ROOT)}:{number}: snippet '{m.group(1)}' starts inside '{current[0]}'")
                current = (m.group(1), number, [])
            elif END.match(line):
                if not current:
                    errors.append(f"{path.relative_to(ROOT)}:{number}: '// end snippet' without a start")
                    continue
                name, start, body = current
                if name in found:
                    errors.append(f"{path.relative_to(ROOT)}:{start}: snippet '{name}' is also marked in {found[name][1]}")
                found[name] = (normalise(body), path.relative_to(ROOT), start, imports)
                current = None
            elif current:
                current[2].append(line)
        if current:
            errors.append(f"{path.relative_to(ROOT)}:{current[1]}: snippet '{current[0]}' has no '// end snippet'")
    return found


def article_snippets(errors):
    """[(name, lines, file, line number)]"""
    found = []
    for catalog in CATALOGS:
        for path in sorted(catalog.glob("*.md")):
            lines = path.read_text().split("\n")
            for number, line in enumerate(lines, 1):
                m = ARTICLE_MARK.match(line)
                if not m:
                    continue
                where = f"{path.relative_to(ROOT)}:{number}"
                fence = number  # index of the line after the mark
                if fence >= len(lines) or lines[fence].strip() != "```swift":
                    errors.append(f"{where}: snippet '{m.group(1)}' is not followed by a ```swift block")
                    continue
                body = []
                for end in range(fence + 1, len(lines)):
                    if lines[end].strip() == "```":
                        break
                    body.append(lines[end])
                else:
                    errors.append(f"{where}: snippet '{m.group(1)}': the code block does not end")
                    continue
                found.append((m.group(1), body, path.relative_to(ROOT), number))
    return found


def main():
    errors = []
    tests = test_snippets(errors)
    shown = {}
    for name, body, path, number in article_snippets(errors):
        where = f"{path}:{number}"
        if name in shown:
            errors.append(f"{where}: snippet '{name}' is already shown at {shown[name]}")
            continue
        shown[name] = where
        if name not in tests:
            errors.append(f"{where}: snippet '{name}' is not marked in any file of {TESTS.relative_to(ROOT)}")
            continue
        expected, test_path, test_line, imports = tests[name]
        body = normalise(body)
        while body and IMPORT.match(body[0]):
            module = IMPORT.match(body[0]).group(1)
            if module not in imports:
                errors.append(f"{where}: snippet '{name}' imports {module}, which {test_path} does not")
            body.pop(0)
        body = normalise(body)
        if body != expected:
            errors.append(f"{where}: snippet '{name}' differs from {test_path}:{test_line}")
            for i in range(max(len(body), len(expected))):
                a = body[i] if i < len(body) else "<none>"
                b = expected[i] if i < len(expected) else "<none>"
                if a != b:
                    errors.append(f"    first difference, line {i + 1}:\n    article: {a}\n    test:    {b}")
                    break
    for name, (_, path, line, _) in sorted(tests.items()):
        if name not in shown:
            errors.append(f"{path}:{line}: snippet '{name}' is shown in no article")
    for error in errors:
        print(error)
    if errors:
        return 1
    print(f"snippets: {len(shown)} shown, each the code of its test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
