//! Property: paging through a list, by page number or by following cursors, sees every item
//! exactly once and in order.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use proptest::prelude::*;
use specpress_pagination::{CursorCodec, ListUrl, PageInfo, PageRequest};

fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_700_000_000)
}

/// A list endpoint paginated in memory the way a service would: page numbers map to ranges,
/// cursors carry the next offset.
fn serve(items: &[u32], codec: &CursorCodec, query: &str) -> (Vec<u32>, PageInfo) {
    let req = PageRequest::from_query(Some(query)).expect("valid query");
    let (page, start) = match &req.cursor {
        Some(c) => {
            let pos = codec
                .decode("items:all", c, now())
                .expect("our cursor verifies");
            let offset = u64::from_be_bytes(pos.position.try_into().expect("8-byte offset"));
            (pos.page, usize::try_from(offset).expect("fits"))
        }
        None => (req.page, req.range(items.len()).start),
    };
    let end = (start + req.limit as usize).min(items.len());
    let next_cursor = (end < items.len())
        .then(|| codec.encode("items:all", page + 1, &(end as u64).to_be_bytes(), now()));
    let info = PageInfo::new(&req, items.len() as u64)
        .with_page(page)
        .with_next_cursor(next_cursor);
    (items[start..end].to_vec(), info)
}

fn query_of(link: &str) -> &str {
    link.split_once('?').map(|(_, q)| q).unwrap_or("")
}

proptest! {
    #[test]
    fn pages_by_number_partition_the_list(total in 0usize..400, limit in 1u32..=100) {
        let items: Vec<u32> = (0..total as u32).collect();
        let codec = CursorCodec::new(&[3u8; 32]).expect("key");
        let mut seen = Vec::new();
        let pages = total.div_ceil(limit as usize).max(1);
        for page in 1..=pages {
            let (data, info) = serve(&items, &codec, &format!("page={page}&limit={limit}"));
            prop_assert_eq!(info.total_pages() as usize, total.div_ceil(limit as usize));
            prop_assert_eq!(info.has_more(), page < pages);
            seen.extend(data);
        }
        prop_assert_eq!(seen, items);
    }

    #[test]
    fn following_next_links_partitions_the_list(total in 0usize..400, limit in 1u32..=100) {
        let items: Vec<u32> = (0..total as u32).collect();
        let codec = CursorCodec::new(&[3u8; 32]).expect("key");
        let url = ListUrl::new("/items", Some("filter=x"));
        let mut seen = Vec::new();
        let mut query = format!("filter=x&limit={limit}");
        let mut requests = 0;
        loop {
            requests += 1;
            prop_assert!(requests <= total + 2, "pagination does not terminate");
            let (data, info) = serve(&items, &codec, &query);
            seen.extend(data);
            match info.next_link(&url) {
                Some(next) => {
                    prop_assert!(next.contains("filter=x"));
                    query = query_of(&next).to_owned();
                }
                None => break,
            }
        }
        prop_assert_eq!(seen, items);
    }
}
