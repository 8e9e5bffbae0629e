//! Baseline for `scripts/load.sh`: the smallest warp 0.4 JSON server, `GET /` answering
//! `{"message":"hello"}`, on the same tokio multi-thread runtime the service uses. Whatever
//! req/s it reaches on a machine is the ceiling the authenticated endpoints are compared with.
//!
//! `PORT=18081 cargo run --release --example hello_world` (binds 127.0.0.1 only).

use std::net::{Ipv4Addr, SocketAddr};

use warp::Filter;

#[tokio::main]
async fn main() {
    let port = match std::env::var("PORT") {
        Ok(raw) => raw.parse::<u16>().unwrap_or_else(|_| {
            eprintln!("hello_world: PORT must be a port number, got {raw:?}");
            std::process::exit(2);
        }),
        Err(_) => 18081,
    };
    let hello =
        warp::path::end().and(warp::get()).map(|| warp::reply::json(&serde_json::json!({ "message": "hello" })));
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    eprintln!("hello_world listening on http://{addr}");
    warp::serve(hello).run(addr).await;
}
