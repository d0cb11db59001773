//! Marks the tests whose tools are missing here as ignored, outside CI (shared/testkit).

use specpress_testkit::Tool;

fn main() {
    specpress_testkit::build::probe(&[Tool::Python, Tool::Moto]);
}
