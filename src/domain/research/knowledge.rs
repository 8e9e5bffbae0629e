//! What a research run knows: the sources it consulted and the knowledge items quoted from them.
//! The state machine ([`super::state`]) gathers them and the answer composer ([`super::answer`])
//! reads them; neither needs the other to do so.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// Where a source came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceOrigin {
    /// A web page (or its search snippet).
    Web,
    /// One of the user's stored documents.
    Internal,
}

/// A consulted source. Source `n` of the answer's `[n]` is `sources()[n - 1]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Source {
    url: String,
    title: String,
    provider: String,
    #[serde(with = "time::serde::rfc3339")]
    retrieved_at: OffsetDateTime,
    origin: SourceOrigin,
}

impl Source {
    pub(super) fn new(
        url: String,
        title: String,
        provider: String,
        retrieved_at: OffsetDateTime,
        origin: SourceOrigin,
    ) -> Self {
        Self { url, title, provider, retrieved_at, origin }
    }

    /// The page's final URL, or `/api/documents/{id}` for a stored document.
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn title(&self) -> &str {
        &self.title
    }

    /// The search provider that found it, or `internal`.
    pub fn provider(&self) -> &str {
        &self.provider
    }

    pub fn retrieved_at(&self) -> OffsetDateTime {
        self.retrieved_at
    }

    pub fn origin(&self) -> SourceOrigin {
        self.origin
    }

    pub(super) fn citation(&self) -> SourceCitation {
        SourceCitation {
            url: self.url.clone(),
            title: self.title.clone(),
            provider: self.provider.clone(),
            retrieved_at: self.retrieved_at,
        }
    }
}

/// Where a knowledge item's content came from: `{url, title, provider, retrieved_at}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceCitation {
    url: String,
    title: String,
    provider: String,
    #[serde(with = "time::serde::rfc3339")]
    retrieved_at: OffsetDateTime,
}

impl SourceCitation {
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn title(&self) -> &str {
        &self.title
    }

    pub fn provider(&self) -> &str {
        &self.provider
    }

    pub fn retrieved_at(&self) -> OffsetDateTime {
        self.retrieved_at
    }
}

/// What the research learned: a passage quoted verbatim from each source it cites (every cited
/// source's text contains `content`). `{title, content, sources}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnowledgeItem {
    title: String,
    content: String,
    sources: Vec<SourceCitation>,
}

impl KnowledgeItem {
    /// The sub-question the content answers.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The quoted passage, at most [`MAX_ITEM_CONTENT_CHARS`](super::state::MAX_ITEM_CONTENT_CHARS) characters.
    pub fn content(&self) -> &str {
        &self.content
    }

    pub fn sources(&self) -> &[SourceCitation] {
        &self.sources
    }
}

/// Adds `content`, quoted from the source `citation` names, to `items` under `title`; returns
/// whether a new item was made. Content already in an item is not repeated: an item with the same
/// content gains the citation (once per URL), and content contained in an existing item is dropped.
pub(super) fn add_item(items: &mut Vec<KnowledgeItem>, title: &str, content: String, citation: SourceCitation) -> bool {
    for item in items.iter_mut() {
        if item.content == content {
            if !item.sources.iter().any(|cited| cited.url == citation.url) {
                item.sources.push(citation);
            }
            return false;
        }
        if item.content.contains(&content) {
            return false;
        }
    }
    items.push(KnowledgeItem { title: title.to_owned(), content, sources: vec![citation] });
    true
}
