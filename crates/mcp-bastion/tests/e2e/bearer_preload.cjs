// Preloaded into the conformance suite (`node --require`): every HTTP request of the
// process carries `Authorization: Bearer $CONFORMANCE_BEARER`, as a host configured with
// the listener's token would send. Global fetch and undici's `request` share the global
// dispatcher, so both go through this agent. Nothing else about a request changes.
'use strict';
const undici = require('undici');

const value = `Bearer ${process.env.CONFORMANCE_BEARER}`;

class BearerAgent extends undici.Agent {
  dispatch(opts, handler) {
    const h = opts.headers;
    if (Array.isArray(h)) {
      opts.headers = [...h, 'authorization', value];
    } else if (h && typeof h !== 'string' && typeof h[Symbol.iterator] === 'function') {
      opts.headers = [...h].flat().concat(['authorization', value]);
    } else {
      opts.headers = { ...(h || {}), authorization: value };
    }
    return super.dispatch(opts, handler);
  }
}

undici.setGlobalDispatcher(new BearerAgent());
