//! specpress-pagination (work in progress).
