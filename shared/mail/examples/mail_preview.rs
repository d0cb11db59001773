//! Writes the tests' sample mails (a release with hostile strings, a confirmation, a digest) as `.eml` files into
//! DIR, to open in a mail client: `cargo run -p specpress-mail --example mail_preview -- DIR`.

#[path = "../tests/common/mod.rs"]
mod common;

use specpress_domain::ports::Mailer;
use specpress_mail::{EmlOutbox, Sender};

#[tokio::main]
async fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: mail_preview DIR");
        std::process::exit(2);
    };
    let sender = match Sender::parse("Specpress <docs@example.com>") {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let outbox = EmlOutbox::new(&dir, sender);
    let to = "reader@example.net";
    for mail in [
        common::release_mail("release", to, common::HOSTILE_TITLE),
        common::confirm_mail("confirm", to),
        common::digest_mail("digest", to),
    ] {
        if let Err(e) = outbox.send(&mail).await {
            eprintln!("{}: {e}", mail.id);
            std::process::exit(1);
        }
    }
    println!("{}", outbox.describe());
}
