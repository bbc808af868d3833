from backend.ingest.html_loader import html_to_text, load_html

PAGE = b"""<!DOCTYPE html><html><head><title>  Page   Title </title>
<style>p { color: red }</style><script>var secret = 1;</script></head>
<body><noscript>Enable JS</noscript><template><p>hidden</p></template>
<h1>Main Heading</h1>
<p>First <b>bold</b> paragraph&nbsp;here.</p><!-- a comment -->
<ul><li>Item one<ul><li>Nested item</li></ul></li><li><p>Item two</p></li></ul>
<h3>Jumped level</h3>
<blockquote>Quoted words.</blockquote>
<pre>line 1
  line 2</pre>
<table><tr><td>Cell A</td><td>Cell B</td></tr></table>
<div>Loose text in a div<br>after a break</div>
<script>document.write("never")</script>
</body></html>"""


def test_blocks_and_title():
    loaded = load_html(PAGE, "page.html")
    assert loaded.title == "Page Title"
    assert loaded.source_type == "html"
    assert [(b.kind, b.level, b.text) for b in loaded.blocks] == [
        ("heading", 1, "Main Heading"),
        ("paragraph", 0, "First bold paragraph here."),  # nbsp collapsed
        ("paragraph", 0, "Item one"),
        ("paragraph", 0, "Nested item"),
        ("paragraph", 0, "Item two"),
        ("heading", 3, "Jumped level"),
        ("paragraph", 0, "Quoted words."),
        ("paragraph", 0, "line 1\n  line 2"),
        ("paragraph", 0, "Cell A"),
        ("paragraph", 0, "Cell B"),
        ("paragraph", 0, "Loose text in a div"),
        ("paragraph", 0, "after a break"),
    ]


def test_invisible_content_never_survives():
    joined = " ".join(b.text for b in load_html(PAGE, "page.html").blocks)
    for hidden in ("secret", "color", "Enable JS", "hidden", "never", "comment"):
        assert hidden not in joined


def test_title_falls_back_to_first_h1():
    loaded = load_html(b"<h2>Sub</h2><h1>Real Title</h1><p>x</p>", "t.html")
    assert loaded.title == "Real Title"


def test_charset_from_meta_is_honoured():
    data = '<meta charset="windows-1252"><p>café “quoted”</p>'.encode("cp1252")
    assert load_html(data, "t.html").blocks[0].text == "café “quoted”"


def test_deep_nesting_does_not_overflow():
    data = b"<div>" * 3000 + b"<p>deep</p>" + b"</div>" * 3000
    assert [b.text for b in load_html(data, "deep.html").blocks] == ["deep"]


def test_html_to_text_fragment():
    assert html_to_text("<p>a <script>x()</script>b</p>") == "a b"
