/** Notification channels: their configuration, templates, messages and one send (see each module). */
export const CHANNEL_SEAL_PURPOSE = 'notification-channel';
export {
  CHANNEL_KINDS,
  channelSecretOf,
  parseChannelUrl,
  redactedTarget,
  channelHttpUrl,
  type ChannelFields,
  type ChannelKind,
  type ChannelSecret,
} from './config.js';
export { DEFAULT_BODY, DEFAULT_SUBJECT, renderMessage, type NotifyData, type ChangeLine } from './message.js';
export { parseTemplate, TemplateError, MAX_TEMPLATE_CHARS } from './template.js';
export { sendToChannel, type ChannelSendDeps } from './send.js';
