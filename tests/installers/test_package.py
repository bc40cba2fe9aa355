"""Pieces of the Linux packaging that need no build: reading glibc needs, naming."""

from __future__ import annotations

from installers.linux.package import deb_arch, newest_glibc

OBJDUMP = """
/usr/lib/x86_64-linux-gnu/libexample.so.1:     file format elf64-x86-64

DYNAMIC SYMBOL TABLE:
0000000000000000      DF *UND*  0000000000000000 (GLIBC_2.2.5) memcpy
0000000000000000      DF *UND*  0000000000000000 (GLIBC_2.34) __libc_start_main
0000000000000000      DF *UND*  0000000000000000 (GLIBC_2.17) clock_gettime
0000000000000000      DO *UND*  0000000000000000 (GLIBC_PRIVATE) _rtld_global
"""


def test_newest_glibc_compares_versions_as_numbers() -> None:
    assert newest_glibc(OBJDUMP) == (2, 34)
    assert newest_glibc("(GLIBC_2.9) a (GLIBC_2.10) b") == (2, 10)
    assert newest_glibc("no versions here (GLIBC_PRIVATE)") == ()


def test_deb_architecture_names() -> None:
    assert deb_arch("x86_64") == "amd64"
    assert deb_arch("aarch64") == "arm64"
