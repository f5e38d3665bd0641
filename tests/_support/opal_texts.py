"""The tool rules opal's document gives word for word, shared by the tests of every
opal version."""

FOUR = ["read_file", "edit_file", "write_file", "shell"]
READ_1 = (
    "- Use the `read_file` tool to read files. Do NOT use `cat`, `head`, `tail`, or `less` "
    "via shell."
)
READ_2 = "- Use `read_file` with `offset` and `limit` to read specific line ranges."
EDIT = (
    "- Use the `edit_file` tool for all file modifications. Do NOT use `sed`, `awk`, "
    "`perl -i`, or shell redirects (`>`, `>>`)."
)
WRITE = "- Use the `write_file` tool to create new files. Do NOT use shell redirects or `tee`."
DISPLAY = (
    "- When summarizing your actions, output plain text directly in your response. Do NOT "
    "use `cat`, `echo`, or shell to display files you just wrote."
)
SEARCH = "- Use shell commands such as `cat`, `grep`, `find` and `ls` to explore files."
STATUS = (
    "- Before starting each major step in a multi-step task, emit a short status tag: "
    "`<status>Analyzing test failures</status>`. Keep it under 6 words."
)
