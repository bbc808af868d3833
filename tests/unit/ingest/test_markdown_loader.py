from backend.ingest.markdown_loader import load_markdown

DOC = b"""# The Title

Intro with a [link](https://example.com) and an ![image](pic.png) and `code`.

Setext Heading
--------------

- first item
- second *item*

### Deep

```python
x = 1

y = 2
```

<div>Raw <b>html</b> text<script>alert("xss")</script></div>

Inline <span>tag</span> and <script>steal()</script> gone.

| a | b |
|---|---|
| 1 | 2 |

> A quote &amp; more.
"""


def test_blocks_headings_and_plain_text():
    loaded = load_markdown(DOC, "doc.md")
    assert loaded.title == "The Title"
    assert loaded.source_type == "markdown"
    assert [(b.kind, b.level, b.text) for b in loaded.blocks] == [
        ("heading", 1, "The Title"),
        ("paragraph", 0, "Intro with a link and an and code."),
        ("heading", 2, "Setext Heading"),
        ("paragraph", 0, "first item"),
        ("paragraph", 0, "second item"),
        ("heading", 3, "Deep"),
        ("paragraph", 0, "x = 1\n\ny = 2"),
        ("paragraph", 0, "Raw html text"),
        ("paragraph", 0, "Inline tag and gone."),
        ("paragraph", 0, "a | b"),
        ("paragraph", 0, "1 | 2"),
        ("paragraph", 0, "A quote & more."),
    ]


def test_no_script_survives():
    loaded = load_markdown(DOC, "doc.md")
    joined = " ".join(b.text for b in loaded.blocks)
    assert "alert" not in joined and "steal" not in joined and "<" not in joined


def test_no_h1_means_no_title():
    loaded = load_markdown(b"## Only a subsection\n\nText.", "doc.md")
    assert loaded.title is None
    assert loaded.blocks[0].level == 2
