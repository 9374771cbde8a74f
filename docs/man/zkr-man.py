#!/usr/bin/env python3
"""zkr's manual pages and help texts from one source.

Reads the page sources in docs/man/ (zkr.txt, zkr-COMMAND.txt; the format
is described in docs/man/README.md) and writes either the roff pages
(--man OUTDIR: zkr.1, zkr-COMMAND.1, installed into man1) or the C file
that zkr compiles in (--c FILE: the same pages as plain text, for
`zkr help COMMAND` and `zkr COMMAND --help`, with each page's synopsis and
documented options; tools/zkr-help.h declares them). The first source is
zkr's own page, the others its commands in the order `zkr help` lists
them. Standard library only: it runs at build time.
"""

import argparse
import os
import re
import sys
import textwrap

WIDTH = 79          # plain text: the longest line
INDENT = 4          # plain text: a section's body
TERM_INDENT = 4     # a definition's text, past its term (roff: .TP 4)
LITERAL_INDENT = 2  # a literal block, past the body (roff: .RS 2)

SECTION_RE = re.compile(r"^[A-Z]+( [A-Z]+)*$")
OPTION_RE = re.compile(r"^(?:-([A-Za-z0-9]), )?--([a-z0-9][a-z0-9-]*)(?:=(\S+))?$")
PAGE_REF_RE = re.compile(r"\b(zkr(?:-[a-z]+)?)\((1)\)")


class SourceError(Exception):
    pass


class Page:
    def __init__(self, name):
        self.name = name                      # "zkr-lock"
        self.command = name[4:] if name != "zkr" else None
        self.summary = None                   # "run a command while ..."
        self.sections = []                    # [(title, [block])]
        self.options = []                     # [(long, short or None, arg or None)]

    def synopsis(self):
        for title, blocks in self.sections:
            if title == "SYNOPSIS":
                return [line for block in blocks for line in block[1]]
        return []


# ---- reading a source ------------------------------------------------------

def read_lines(path, seen=()):
    """The source's lines, comments dropped and @include NAME expanded
    (NAME.inc beside the source)."""
    if path in seen:
        raise SourceError(f"{path}: included from itself")
    lines = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.rstrip() != line:
                raise SourceError(f"{path}:{number}: trailing white space")
            if "\t" in line:
                raise SourceError(f"{path}:{number}: a tab (use spaces)")
            if line.startswith("#"):
                continue
            if line.startswith("@include "):
                name = line.split(None, 1)[1]
                include = os.path.join(os.path.dirname(path), name + ".inc")
                lines += read_lines(include, seen + (path,))
            else:
                lines.append(line)
    return lines


def split_sections(path, lines):
    """[(TITLE, [line])]: a section starts at a line of capitals (words
    of A-Z) that is not a definition's term (the next line does not start
    with ': ')."""
    sections = []
    for i, line in enumerate(lines):
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if SECTION_RE.match(line) and not following.startswith(": "):
            sections.append((line, []))
        elif sections:
            sections[-1][1].append(line)
        elif line:
            raise SourceError(f"{path}: text before the first section: {line!r}")
    return sections


def split_blocks(lines):
    blocks, current = [], []
    for line in lines + [""]:
        if line:
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    return blocks


def parse_deflist(path, lines):
    """TERM, then ': TEXT' and lines that go on with two spaces."""
    items = []
    for line in lines:
        if line.startswith(": "):
            if not items or items[-1][1] is not None:
                raise SourceError(f"{path}: a definition without its term: {line!r}")
            items[-1][1] = line[2:].strip()
        elif line.startswith("  "):
            if not items or items[-1][1] is None:
                raise SourceError(f"{path}: an indented line outside a definition: {line!r}")
            items[-1][1] += " " + line.strip()
        else:
            if items and items[-1][1] is None:
                raise SourceError(f"{path}: the term {items[-1][0]!r} has no ': ' definition")
            items.append([line, None])
    if items[-1][1] is None:
        raise SourceError(f"{path}: the term {items[-1][0]!r} has no ': ' definition")
    return [tuple(item) for item in items]


def parse_block(path, title, lines):
    if title == "SYNOPSIS":
        return ("synopsis", [line.strip() for line in lines])
    if lines[0].startswith("@"):
        if len(lines) != 1 or lines[0] not in ("@commands", "@pages"):
            raise SourceError(f"{path}: unknown directive {lines[0]!r}")
        return ("directive", lines[0][1:])
    if lines[0].startswith("  "):
        if any(not line.startswith("  ") for line in lines):
            raise SourceError(f"{path}: a literal block's lines all start with two spaces: "
                              f"{lines[0]!r}")
        return ("literal", [line[2:] for line in lines])
    if len(lines) > 1 and lines[1].startswith(": "):
        return ("deflist", parse_deflist(path, lines))
    if any(line.startswith(": ") for line in lines):
        raise SourceError(f"{path}: a ': ' definition inside a paragraph: {lines[0]!r}")
    return ("para", " ".join(line.strip() for line in lines))


def read_page(path):
    name = os.path.basename(path)[:-len(".txt")]
    page = Page(name)
    sections = split_sections(path, read_lines(path))
    if not sections or sections[0][0] != "NAME":
        raise SourceError(f"{path}: the first section is not NAME")
    name_line = " ".join(line.strip() for line in sections[0][1] if line)
    if not name_line.startswith(name + " - "):
        raise SourceError(f"{path}: NAME is not '{name} - SUMMARY'")
    page.summary = name_line[len(name) + 3:]
    for title, lines in sections[1:]:
        blocks = [parse_block(path, title, block) for block in split_blocks(lines)]
        page.sections.append((title, blocks))
    titles = [title for title, _ in page.sections]
    for required in ("SYNOPSIS", "DESCRIPTION", "EXIT STATUS", "SEE ALSO"):
        if required not in titles:
            raise SourceError(f"{path}: no {required} section")
    if page.command is not None:
        page.options = read_options(path, page)
    return page


def read_options(path, page):
    """The OPTIONS section's terms: every one an option (-x, --long=ARG)."""
    options = []
    for title, blocks in page.sections:
        if title != "OPTIONS":
            continue
        for kind, content in blocks:
            if kind != "deflist":
                raise SourceError(f"{path}: OPTIONS holds definitions only")
            for term, _ in content:
                match = OPTION_RE.match(term)
                if match is None:
                    raise SourceError(f"{path}: bad option term {term!r}: need "
                                      "'-x, --long=ARG', '--long=ARG' or '--long'")
                short, long_name, arg = match.groups()
                if any(long_name == other[0] for other in options):
                    raise SourceError(f"{path}: --{long_name} documented twice")
                options.append((long_name, short, arg))
    if not options:
        raise SourceError(f"{path}: no OPTIONS")
    return options


def expand_directives(main, commands):
    """@commands: each command and its summary; @pages: every page's name."""
    for title, blocks in main.sections:
        for i, (kind, content) in enumerate(blocks):
            if kind != "directive":
                continue
            if content == "commands":
                width = max(len(page.command) for page in commands) + 2
                items = [(page.command, page.summary[0].upper() + page.summary[1:])
                         for page in commands]
                blocks[i] = ("table", (width, items))
            else:
                blocks[i] = ("para", ", ".join(f"{page.name}(1)" for page in commands))


# ---- plain text ----------------------------------------------------------

def wrap(text, indent):
    return textwrap.wrap(text, width=WIDTH, initial_indent=" " * indent,
                         subsequent_indent=" " * indent, break_long_words=False,
                         break_on_hyphens=False)


def text_deflist(items, term_width):
    """man's .TP: the text beside the term when the term fits in front of
    it, else on the lines below."""
    lines = []
    def_indent = INDENT + term_width
    for term, definition in items:
        if len(term) + 2 <= term_width:
            first = " " * INDENT + term.ljust(term_width)
            wrapped = wrap(definition, def_indent)
            lines.append(first + wrapped[0][def_indent:])
            lines += wrapped[1:]
        else:
            lines.append(" " * INDENT + term)
            lines += wrap(definition, def_indent)
    return lines


def text_block(kind, content):
    if kind == "para":
        return wrap(content, INDENT)
    if kind == "synopsis":
        return [" " * INDENT + line for line in content]
    if kind == "literal":
        return [(" " * (INDENT + LITERAL_INDENT) + line).rstrip() for line in content]
    if kind == "deflist":
        lines = []
        for item in content:
            if lines:
                lines.append("")
            lines += text_deflist([item], TERM_INDENT)
        return lines
    if kind == "table":
        width, items = content
        return text_deflist(items, width)
    raise AssertionError(kind)


def page_text(page):
    out = ["NAME", " " * INDENT + f"{page.name} - {page.summary}"]
    for title, blocks in page.sections:
        out += ["", title]
        for i, (kind, content) in enumerate(blocks):
            if i > 0:
                out.append("")
            out += text_block(kind, content)
    for number, line in enumerate(out, 1):
        if len(line) > WIDTH:
            raise SourceError(f"{page.name}: the help's line {number} is longer than {WIDTH} "
                              f"columns: {line.strip()!r}")
    return "\n".join(out) + "\n"


# ---- roff ----------------------------------------------------------------

def roff_escape(text):
    out = []
    for char in text:
        if char == "\\":
            out.append("\\e")
        elif char == "-":
            out.append("\\-")
        elif char == "'":
            out.append("\\(aq")
        elif char == "`":
            out.append("\\(ga")
        elif ord(char) > 126:
            out.append(f"\\[u{ord(char):04X}]")
        else:
            out.append(char)
    return "".join(out)


def roff_line(text):
    """A text line: never read as a request, page references in bold."""
    parts, last = [], 0
    for match in PAGE_REF_RE.finditer(text):
        parts.append(roff_escape(text[last:match.start()]))
        parts.append(f"\\fB{roff_escape(match.group(1))}\\fR({match.group(2)})")
        last = match.end()
    parts.append(roff_escape(text[last:]))
    escaped = "".join(parts)
    return "\\&" + escaped if escaped.startswith(".") else escaped


def roff_option(term):
    """-t, --timeout=SECONDS: the names in bold, the argument in italics."""
    match = OPTION_RE.match(term)
    short, long_name, arg = match.groups()
    text = f"\\fB\\-{short}\\fR, " if short else ""
    text += f"\\fB\\-\\-{roff_escape(long_name)}\\fR"
    if arg:
        text += f"=\\fI{roff_escape(arg)}\\fR"
    return text


def roff_synopsis(line):
    """zkr lock [OPTION…] PATH -- CMD [ARG…]: words and options in bold,
    placeholders (capitals) in italics, the rest as it is."""
    out = []
    for token in re.findall(r"--?[a-z0-9][a-z0-9-]*|[A-Za-z0-9_]+|--|.", line):
        if re.fullmatch(r"[A-Z][A-Z0-9_]*", token):
            out.append(f"\\fI{roff_escape(token)}\\fR")
        elif re.fullmatch(r"--?[a-z0-9][a-z0-9-]*|[a-z][a-z0-9-]*", token):
            out.append(f"\\fB{roff_escape(token)}\\fR")
        else:
            out.append(roff_escape(token))
    return "".join(out)


def roff_block(title, kind, content):
    if kind == "para":
        return [".PP", roff_line(content)]
    if kind == "synopsis":
        return [".nf"] + [roff_synopsis(line) for line in content] + [".fi"]
    if kind == "literal":
        return [".PP", f".RS {LITERAL_INDENT}", ".nf"] + [roff_line(line) for line in content] \
            + [".fi", ".RE"]
    if kind == "deflist":
        lines = []
        for term, definition in content:
            head = roff_option(term) if title == "OPTIONS" else f"\\fB{roff_escape(term)}\\fR"
            lines += [f".TP {TERM_INDENT}", head, roff_line(definition)]
        return lines
    if kind == "table":
        width, items = content
        lines = [".PD 0"]
        for term, definition in items:
            lines += [f".TP {width}", f"\\fB{roff_escape(term)}\\fR", roff_line(definition)]
        return lines + [".PD"]
    raise AssertionError(kind)


def page_roff(page, version):
    title = roff_escape(page.name.upper())
    out = [
        f'.\\" {page.name}(1): generated by docs/man/zkr-man.py from docs/man/{page.name}.txt',
        f'.TH {title} 1 "" "zkr {roff_escape(version)}" "zkr manual"',
        ".nh",
        ".ad l",
        ".SH NAME",
        f"{roff_escape(page.name)} \\- {roff_line(page.summary)}",
    ]
    for section_title, blocks in page.sections:
        out.append(f'.SH "{section_title}"')
        for i, (kind, content) in enumerate(blocks):
            block = roff_block(section_title, kind, content)
            # The first paragraph of a section needs no break of its own.
            if i == 0 and block[0] == ".PP":
                block = block[1:]
            out += block
    return "\n".join(out) + "\n"


# ---- C -------------------------------------------------------------------

def c_string(text):
    """A C string literal, one source line per line of @text."""
    def escape(part):
        out = []
        for byte in part.encode("utf-8"):
            char = chr(byte)
            if char in '"\\':
                out.append("\\" + char)
            elif char == "\n":
                out.append("\\n")
            elif 32 <= byte < 127:
                out.append(char)
            else:
                out.append(f"\\{byte:03o}")
        return "".join(out)
    lines = text.splitlines(keepends=True) or [""]
    return "\n    ".join(f'"{escape(line)}"' for line in lines)


def c_identifier(page):
    return re.sub(r"[^a-z0-9]", "_", page.name)


def page_c(page):
    ident = c_identifier(page)
    out = [f"static const char *const {ident}_synopsis[] = {{"]
    out += [f"  {c_string(line)}," for line in page.synopsis()]
    out += ["  NULL,", "};", ""]
    if page.command is not None:
        out.append(f"static const ZkrHelpOption {ident}_options[] = {{")
        for long_name, short, arg in page.options:
            short_c = f"'{short}'" if short else "0"
            arg_c = c_string(arg) if arg else "NULL"
            out.append(f"  {{ {c_string(long_name)}, {short_c}, {arg_c} }},")
        out += ["  { NULL, 0, NULL },", "};", ""]
    return out


def page_c_entry(page):
    ident = c_identifier(page)
    command = c_string(page.command) if page.command is not None else "NULL"
    options = f"{ident}_options" if page.command is not None else "NULL"
    summary = page.summary[0].upper() + page.summary[1:]
    return [
        "  {",
        f"    {command},",
        f"    {c_string(summary)},",
        f"    {ident}_synopsis,",
        f"    {options},",
        f"    {c_string(page_text(page))},",
        "  },",
    ]


def write_c(path, main, commands):
    out = [
        "/* Generated by docs/man/zkr-man.py from the page sources in docs/man/: edit those. */",
        "",
        '#include "zkr-help.h"',
        "",
    ]
    for page in [main] + commands:
        out += page_c(page)
    out.append("const ZkrHelpPage zkr_help_main =")
    entry = page_c_entry(main)
    out += [line[2:] for line in entry[:-1]] + ["};", ""]
    out.append("const ZkrHelpPage zkr_help_commands[] = {")
    for page in commands:
        out += page_c_entry(page)
    out += ["  { NULL, NULL, NULL, NULL, NULL },", "};"]
    write_file(path, "\n".join(out) + "\n")


def write_file(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--man", metavar="OUTDIR", help="write the roff pages into OUTDIR")
    parser.add_argument("--c", metavar="FILE", help="write the C file of the help texts")
    parser.add_argument("--version", default="", help="zkr's version, for the pages' footer")
    parser.add_argument("sources", nargs="+", help="zkr.txt, then zkr-COMMAND.txt ...")
    args = parser.parse_args()
    try:
        pages = [read_page(path) for path in args.sources]
        main_page, commands = pages[0], pages[1:]
        if main_page.command is not None or any(page.command is None for page in commands):
            raise SourceError("give zkr.txt first, then the commands' pages")
        expand_directives(main_page, commands)
        for page in pages:
            page_text(page)         # checks the widths
        if args.man:
            for page in pages:
                write_file(os.path.join(args.man, page.name + ".1"), page_roff(page, args.version))
        if args.c:
            write_c(args.c, main_page, commands)
    except (SourceError, OSError) as error:
        print(f"zkr-man.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
