import path from 'node:path';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';
import type { History } from '@temporalio/common/lib/proto-utils';

// Histories are kept in the JSON form Temporal's tools write (`temporal workflow show --output
// json`, the UI's download). @temporalio/common's historyToJSON/historyFromJSON load their own
// copy of protobufjs; when npm installs it apart from @temporalio/proto's copy, its type check
// fails ("type must be a Type"). The same conversion through the copy the message types were
// built with works whatever the install layout.
interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): History | null;
}
const protojson = require(
  require.resolve('protobufjs/ext/protojson', { paths: [path.dirname(require.resolve('@temporalio/proto'))] }),
) as ProtoJson;
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType('temporal.api.history.v1.History');

export function historyToJson(history: History): unknown {
  return protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history));
}

/** A History message (int64 as Long), which the replayer takes as it is. */
export function historyFromJson(json: unknown): History {
  const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history) throw new TypeError('Not a workflow history');
  return history;
}
