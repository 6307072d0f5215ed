// Preloaded by the e2e harness with `node --require <this file>`.
//
// server-everything's Streamable HTTP mode calls app.listen(PORT) without a
// host, which binds every interface. This shim makes any listen() call that
// names a TCP port but no host bind 127.0.0.1 instead, so the test server is
// reachable from this machine only.
"use strict";
const net = require("node:net");
const LOOPBACK = "127.0.0.1";
const listen = net.Server.prototype.listen;
function isPort(v) {
  return typeof v === "number" || (typeof v === "string" && /^[0-9]+$/.test(v));
}
net.Server.prototype.listen = function (...args) {
  if (args.length > 0 && isPort(args[0])) {
    if (typeof args[1] !== "string") {
      args.splice(1, 0, LOOPBACK);
    }
  } else if (args.length > 0 && args[0] !== null && typeof args[0] === "object" &&
             !(args[0] instanceof net.Server) && args[0].path === undefined &&
             args[0].fd === undefined && args[0].handle === undefined &&
             args[0].host === undefined) {
    args[0] = { ...args[0], host: LOOPBACK };
  }
  return listen.apply(this, args);
};
