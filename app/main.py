"""Entry point: page frame, navigation and the shared sidebar."""

from __future__ import annotations

import streamlit as st

from app.sidebar import render_sidebar

st.set_page_config(page_title="Discourse QA Studio", page_icon=":material/explore:", layout="wide")
navigation = st.navigation(
    [
        st.Page("views/library.py", title="Library", icon=":material/library_books:", default=True),
        st.Page("views/ask.py", title="Ask", icon=":material/forum:"),
        st.Page("views/compare.py", title="Compare", icon=":material/compare_arrows:"),
        st.Page("views/discourse.py", title="Discourse", icon=":material/account_tree:"),
        st.Page("views/explore.py", title="Explore", icon=":material/park:"),
        st.Page("views/evaluate.py", title="Evaluate", icon=":material/analytics:"),
    ]
)
render_sidebar()
navigation.run()
