//! What the reader tests share: a count of the storage requests the SDK sends.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

/// Records the DynamoDB operation of every request the SDK sends.
#[derive(Debug, Clone, Default)]
pub struct Requests(Arc<Mutex<Vec<String>>>);

impl Requests {
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().expect("not poisoned"))
    }
}

impl Intercept for Requests {
    fn name(&self) -> &'static str {
        "requests"
    }

    fn read_before_transmit(
        &self,
        ctx: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let target = ctx
            .request()
            .headers()
            .get("x-amz-target")
            .unwrap_or("")
            .rsplit('.')
            .next()
            .unwrap_or("")
            .to_owned();
        self.0.lock().expect("not poisoned").push(target);
        Ok(())
    }
}
