import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Dialog } from '../components/dialog.js';
import { Layout } from '../components/layout.js';
import { ScrollBox } from '../components/scroll-box.js';
import { StateBadge } from '../components/state-badge.js';
import { dateTime, spoken } from '../format.js';

type Config = Record<string, unknown>;

interface Channel {
  id: number;
  type: string;
  config: Config;
  subscriptions: { checkId: string | null; groupId: number | null; activated: boolean }[];
}

interface Field {
  key: string;
  label: string;
  input?: 'email' | 'url' | 'password' | 'tel';
  options?: string[];
  optional?: boolean;
}

/** The fields a person fills for each kind of channel (docs/alerting.md has them all). */
const FIELDS: Record<string, Field[]> = {
  EMAIL: [{ key: 'address', label: 'E-mail address', input: 'email' }],
  SLACK: [
    { key: 'url', label: 'Incoming-webhook URL', input: 'url' },
    { key: 'channel', label: 'Channel', optional: true },
  ],
  WEBHOOK: [
    { key: 'name', label: 'Name' },
    { key: 'url', label: 'URL', input: 'url' },
    { key: 'method', label: 'Method', options: ['POST', 'PUT', 'PATCH', 'GET'] },
  ],
  SMS: [
    { key: 'name', label: 'Name' },
    { key: 'number', label: 'Phone number', input: 'tel' },
  ],
  CALL: [
    { key: 'name', label: 'Name' },
    { key: 'number', label: 'Phone number', input: 'tel' },
  ],
  PAGERDUTY: [
    { key: 'serviceName', label: 'Service name', optional: true },
    { key: 'routingKey', label: 'Integration (routing) key', input: 'password' },
  ],
  OPSGENIE: [
    { key: 'name', label: 'Name' },
    { key: 'apiKey', label: 'API key', input: 'password' },
    { key: 'region', label: 'Region', options: ['US', 'EU'] },
    { key: 'priority', label: 'Priority', options: ['P1', 'P2', 'P3', 'P4', 'P5'] },
  ],
};

/** What a channel is, in a few words. */
function summary(channel: Channel): string {
  const c = channel.config;
  return String(c.address ?? c.url ?? c.number ?? c.serviceName ?? c.name ?? '');
}

/** The channel's settings as the form's inputs hold them: text, by field. */
function typedValues(channel: Channel | null): Record<string, string> {
  if (!channel) return {};
  return Object.fromEntries(Object.entries(channel.config).map(([key, value]) => [key, String(value ?? '')]));
}

function ChannelForm({
  channel,
  onSaved,
  onCancel,
}: {
  channel: Channel | null;
  onSaved: (message: string) => void;
  onCancel?: () => void;
}) {
  const [type, setType] = useState(channel?.type ?? 'EMAIL');
  // What the person typed lives in state, not only in the inputs: the page redraws whenever the list loads or a
  // message changes, and a redraw would otherwise put back the values the form was drawn with.
  const [values, setValues] = useState(() => typedValues(channel));
  const [error, setError] = useState<string | null>(null);
  const fields = FIELDS[type] ?? [];
  const typed = (key: string) => (event: { currentTarget: { value: string } }) => {
    const value = event.currentTarget.value;
    setValues((current) => ({ ...current, [key]: value }));
  };
  const idPrefix = channel ? `channel-${channel.id}` : 'new-channel';
  return (
    <form
      class="channel-form"
      onSubmit={async (event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        const config: Config = { ...(channel?.type === type ? channel.config : {}) };
        for (const field of fields) {
          const value = String(data.get(field.key) ?? '');
          if (value === '' && field.optional) delete config[field.key];
          else config[field.key] = value;
        }
        try {
          if (channel) await api.put(`/v1/alert-channels/${channel.id}`, { type, config });
          else await api.post('/v1/alert-channels', { type, config });
          setError(null);
          if (!channel) setValues({});
          onSaved(channel ? 'Channel saved.' : 'Channel created.');
        } catch (e) {
          setError((e as Error).message);
        }
      }}
    >
      <label for={`${idPrefix}-type`}>Kind</label>
      <select
        id={`${idPrefix}-type`}
        value={type}
        disabled={channel !== null}
        onChange={(e) => {
          setType(e.currentTarget.value);
          setValues({});
        }}
      >
        {Object.keys(FIELDS).map((t) => (
          <option key={t} value={t}>
            {spoken(t)}
          </option>
        ))}
      </select>
      {fields.map((field) => {
        const id = `${idPrefix}-${field.key}`;
        const value = values[field.key] ?? '';
        return (
          <div key={`${type}-${field.key}`} class="field">
            <label for={id}>
              {field.label}
              {field.optional ? ' (optional)' : ''}
            </label>
            {field.options ? (
              <select id={id} name={field.key} value={value || field.options[0]} onChange={typed(field.key)}>
                {field.options.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                name={field.key}
                type={field.input ?? 'text'}
                value={value}
                onInput={typed(field.key)}
                required={!field.optional}
                autocomplete="off"
              />
            )}
          </div>
        );
      })}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit">{channel ? 'Save' : 'Create channel'}</button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** Alert channels: list, create, edit, send a test. */
export function AlertChannels() {
  const [channels, setChannels] = useState<Channel[] | null>(null);
  const [editing, setEditing] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const load = () =>
    api.get<Channel[]>('/v1/alert-channels').then(setChannels, (e: Error) => setMessage(e.message));
  useEffect(() => void load(), []);
  const saved = (text: string) => {
    setMessage(text);
    setEditing(null);
    void load();
  };
  return (
    <Layout>
      <h1>Alert channels</h1>
      <p role="status" class="message">
        {message ?? ''}
      </p>
      <ul class="plain">
        {channels?.map((channel) => (
          <li key={channel.id} class="card" data-channel-id={channel.id}>
            <h2>
              {spoken(channel.type)} <span class="muted">{summary(channel)}</span>
            </h2>
            <p class="muted">
              {channel.subscriptions.length} subscription{channel.subscriptions.length === 1 ? '' : 's'}
            </p>
            {editing === channel.id && (
              <Dialog
                title={`Edit ${spoken(channel.type)} ${summary(channel)}`}
                onClose={() => setEditing(null)}
              >
                <ChannelForm channel={channel} onSaved={saved} onCancel={() => setEditing(null)} />
              </Dialog>
            )}
            <div class="actions">
              <button type="button" onClick={() => setEditing(channel.id)}>
                Edit {spoken(channel.type)} {summary(channel)}
              </button>
              <button
                type="button"
                onClick={async () => {
                  setMessage('Sending a test…');
                  try {
                    const answer = await api.post<{
                      outcome: string;
                      responseStatus: number | null;
                      detail: string;
                    }>(`/v1/alert-channels/${channel.id}/test`);
                    setMessage(
                      `Test ${answer.outcome === 'SENT' ? 'sent' : 'failed'}${answer.responseStatus ? ` (${answer.responseStatus})` : ''}: ${answer.detail}`,
                    );
                  } catch (e) {
                    setMessage((e as Error).message);
                  }
                }}
              >
                Send a test to {summary(channel)}
              </button>
            </div>
          </li>
        ))}
      </ul>
      <section aria-labelledby="new-channel">
        <h2 id="new-channel">New channel</h2>
        <ChannelForm channel={null} onSaved={saved} />
      </section>
    </Layout>
  );
}

interface Notification {
  id: string;
  checkId: string;
  alertChannelId: number;
  channelType: string;
  alertType: string;
  title: string;
  checkSessionId: string | null;
  status: string;
  attempts: number;
  error: string | null;
  created_at: string;
}

/** What alerting sent, newest first. */
export function Notifications() {
  const [list, setList] = useState<Notification[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api
      .get<Notification[]>('/v1/alert-notifications?limit=100')
      .then(setList, (e: Error) => setError(e.message));
  }, []);
  return (
    <Layout>
      <h1>Notifications</h1>
      {error && <p role="alert">{error}</p>}
      {list?.length === 0 && <p>No alert was sent yet.</p>}
      <ScrollBox label="Notifications">
        <table>
          <caption class="visually-hidden">Alert notifications, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Written</th>
              <th scope="col">Alert</th>
              <th scope="col">Check</th>
              <th scope="col">Channel</th>
              <th scope="col">Delivery</th>
            </tr>
          </thead>
          <tbody>
            {list?.map((n) => (
              <tr key={n.id}>
                <td>{dateTime(n.created_at)}</td>
                <td>
                  {n.checkSessionId ? <a href={`/sessions/${n.checkSessionId}`}>{n.title}</a> : n.title}
                  <span class="muted kind">{spoken(n.alertType)}</span>
                </td>
                <td>
                  <a href={`/checks/${n.checkId}`}>the check</a>
                </td>
                <td>{spoken(n.channelType)}</td>
                <td>
                  <StateBadge state={n.status} /> <span class="muted">{n.attempts} attempt(s)</span>
                  {n.error && <span class="muted"> {n.error}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </Layout>
  );
}
