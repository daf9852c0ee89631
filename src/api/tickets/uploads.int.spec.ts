import { readdirSync } from 'node:fs';
import path from 'node:path';
import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';

/** The first bytes of real files of each kind: type detection reads content, not names. */
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'), Buffer.alloc(64, 1)]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 0x90)]);
const CSV = Buffer.from('name,amount\nCarol,12.50\n');

type Part = [field: string, content: Buffer, name: string] | [field: string, text: string];

describe('Attachments', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let category: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    agent = await addMember(server, admin, 'agent');
    category = await addCategory(server, admin, { customFields: [{ fieldName: 'receipt', fieldType: 'text', prompt: 'Receipt', required: false }] });
  });
  afterAll(() => server.stop());

  const send = async (url: string, token: string, parts: Part[]) => {
    const form = new FormData();
    for (const part of parts) {
      if (part.length === 3) form.append(part[0], new Blob([new Uint8Array(part[1])]), part[2]);
      else form.append(part[0], part[1]);
    }
    const response = await fetch(`${server.url}${url}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    return { status: response.status, body: await response.json() };
  };
  const fetchFile = async (url: string, token?: string) => {
    const response = await fetch(`${server.url}${url}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  };
  const storedFiles = () => readdirSync(path.join(server.dataDir, 'uploads')).filter((name) => !name.startsWith('.'));
  const incoming = () => readdirSync(path.join(server.dataDir, 'uploads', '.incoming'));
  const withTicket = async () => {
    const customer = await addMember(server, admin, 'customer');
    return { customer, ticket: await openTicket(server, customer, category) };
  };

  it('when a customer sends files with a message, then they are stored under generated names and served only to those who may see the ticket', async () => {
    const { customer, ticket } = await withTicket();
    const sent = await send(`/api/tickets/${ticket._id}/messages`, customer.token, [
      ['content', 'Screenshot and export attached'],
      ['attachments', PNG, 'screen shot.png'],
      ['attachments', CSV, 'export.csv'],
    ]);
    expect(sent.status).toBe(201);
    expect(sent.body.message).toMatchObject({
      messageType: 'text',
      attachments: [
        { mimeType: 'image/png', originalName: 'screen shot.png', size: PNG.length },
        { mimeType: 'text/csv', originalName: 'export.csv', size: CSV.length },
      ],
    });
    const [image, csv] = sent.body.message.attachments as Array<{ url: string }>;
    expect(image!.url).toMatch(/^\/api\/uploads\/[0-9a-f-]{36}\.png$/);
    expect(storedFiles()).toEqual(expect.arrayContaining([path.basename(image!.url), path.basename(csv!.url)]));

    const own = await fetchFile(image!.url, customer.token);
    expect(own.status).toBe(200);
    expect(own.bytes.equals(PNG)).toBe(true);
    expect(own.headers.get('content-type')).toBe('image/png');
    expect(own.headers.get('content-disposition')).toBe('inline; filename="screen shot.png"');
    expect(own.headers.get('x-content-type-options')).toBe('nosniff');
    const download = await fetchFile(csv!.url, agent.token);
    expect(download.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(download.headers.get('content-disposition')).toBe('attachment; filename=export.csv');

    const stranger = await addMember(server, admin, 'customer');
    expect((await fetchFile(image!.url, stranger.token)).status).toBe(404);
    expect((await fetchFile(image!.url)).status).toBe(401);
    expect((await fetchFile('/api/uploads/..%2F..%2Fsecrets.json', agent.token)).status).toBe(404);
  });

  it('when only files are sent, then the message is a file message', async () => {
    const { customer, ticket } = await withTicket();
    const sent = await send(`/api/tickets/${ticket._id}/messages`, customer.token, [['attachments', PDF, 'invoice.pdf']]);
    expect(sent).toMatchObject({ status: 201, body: { message: { messageType: 'file', content: '', attachments: [{ mimeType: 'application/pdf' }] } } });
  });

  it('when a file lies about its type, then it is refused with 415 and nothing is kept', async () => {
    const { customer, ticket } = await withTicket();
    const before = storedFiles().length;
    const cases: Array<[Buffer, string, RegExp]> = [
      [EXE, 'report.pdf', /report\.pdf is an EXE file; allowed are/],
      [PNG, 'notes.txt', /notes\.txt does not hold what its name says/],
      [Buffer.from('just text'), 'photo.png', /photo\.png is not an allowed file type/],
      [Buffer.from('name,amount\nJos\xe9,1\n', 'latin1'), 'data.csv', /data\.csv is not a plain UTF-8 text file/],
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'logo.svg', /not an allowed file type/],
    ];
    for (const [content, name, error] of cases) {
      const answer = await send(`/api/tickets/${ticket._id}/messages`, customer.token, [
        ['content', 'see file'],
        ['attachments', CSV, 'fine.csv'],
        ['attachments', content, name],
      ]);
      expect(answer.status).toBe(415);
      expect(answer.body).toMatchObject({ code: 'UNSUPPORTED_TYPE', error: expect.stringMatching(error) });
    }
    expect(storedFiles()).toHaveLength(before);
    expect(incoming()).toEqual([]);
    expect((await server.request('GET', `/api/tickets/${ticket._id}/messages`, { token: customer.token })).body.messages).toEqual([]);
  });

  it('when a file name carries a path, then it is refused with a clear error', async () => {
    const { customer, ticket } = await withTicket();
    for (const name of ['../../etc/passwd.txt', '..\\windows\\win.ini.txt', 'dir/evil.csv']) {
      const answer = await send(`/api/tickets/${ticket._id}/messages`, customer.token, [['attachments', CSV, name]]);
      expect(answer).toMatchObject({ status: 400, body: { error: expect.stringContaining('File names cannot contain a path') } });
    }
    expect(incoming()).toEqual([]);
  });

  it('when files are too large or too many for the system settings, then they are refused and nothing is kept', async () => {
    const { customer, ticket } = await withTicket();
    const before = storedFiles().length;
    const tooMany = await send(
      `/api/tickets/${ticket._id}/messages`,
      customer.token,
      Array.from({ length: 6 }, (_, i): Part => ['attachments', CSV, `part${i}.csv`]),
    );
    expect(tooMany).toMatchObject({ status: 400, body: { error: 'Too many files: at most 5 per message' } });
    await server.request('PUT', '/api/settings', { token: admin, body: { maxFileSize: 1048576, maxFiles: 2 } });
    try {
      const big = Buffer.concat([PNG, Buffer.alloc(1048576, 7)]);
      const tooLarge = await send(`/api/tickets/${ticket._id}/messages`, customer.token, [['attachments', big, 'huge.png']]);
      expect(tooLarge).toMatchObject({ status: 413, body: { error: 'File too large: each file can be at most 1 MB', code: 'PAYLOAD_TOO_LARGE' } });
      const three = await send(`/api/tickets/${ticket._id}/messages`, customer.token, [
        ['attachments', CSV, 'a.csv'],
        ['attachments', CSV, 'b.csv'],
        ['attachments', CSV, 'c.csv'],
      ]);
      expect(three).toMatchObject({ status: 400, body: { error: 'Too many files: at most 2 per message' } });
    } finally {
      await server.request('PUT', '/api/settings', { token: admin, body: { maxFileSize: 10485760, maxFiles: 5 } });
    }
    expect(storedFiles()).toHaveLength(before);
    expect(incoming()).toEqual([]);
  });

  it('when a multipart body is malformed, then it is refused with 400, not a server error', async () => {
    const { customer, ticket } = await withTicket();
    const url = `${server.url}/api/tickets/${ticket._id}/messages`;
    const headers = { authorization: `Bearer ${customer.token}` };
    const noBoundary = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'multipart/form-data' }, body: 'content=hi' });
    expect(noBoundary.status).toBe(400);
    const truncated = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'multipart/form-data; boundary=XYZ' },
      body: '--XYZ\r\nContent-Disposition: form-data; name="attachments"; filename="a.csv"\r\n\r\nname,amount\n',
    });
    expect(truncated.status).toBe(400);
    expect(incoming()).toEqual([]);
  });

  it("when staff attach a file to an internal note, then the customer can't fetch it", async () => {
    const { customer, ticket } = await withTicket();
    const note = await send(`/api/tickets/${ticket._id}/messages`, agent.token, [
      ['content', 'internal evidence'],
      ['isInternal', 'true'],
      ['attachments', PNG, 'evidence.png'],
    ]);
    expect(note.body.message.isInternal).toBe(true);
    const url = note.body.message.attachments[0].url as string;
    expect((await fetchFile(url, customer.token)).status).toBe(404);
    expect((await fetchFile(url, agent.token)).status).toBe(200);
  });

  it('when a ticket is opened with a file for a custom field, then the answer links to it; deleting the ticket stops serving it', async () => {
    const customer = await addMember(server, admin, 'customer');
    const created = await send('/api/tickets', customer.token, [
      ['title', 'Refund please'],
      ['description', 'Receipt attached'],
      ['category', category],
      ['priority', 'high'],
      ['customFieldValues.receipt', PDF, 'receipt.pdf'],
    ]);
    expect(created.status).toBe(201);
    expect(created.body.ticket).toMatchObject({
      priority: 'high',
      customFieldValues: [{ fieldName: 'receipt', fieldPrompt: 'Receipt', value: { mimeType: 'application/pdf', originalName: 'receipt.pdf' } }],
    });
    const url = created.body.ticket.customFieldValues[0].value.url as string;
    expect((await fetchFile(url, customer.token)).status).toBe(200);
    const stray = await send('/api/tickets', customer.token, [
      ['title', 't'],
      ['description', 'd'],
      ['category', category],
      ['attachments', PDF, 'x.pdf'],
    ]);
    expect(stray.status).toBe(400);
    await server.request('DELETE', `/api/tickets/${created.body.ticket._id}`, { token: admin });
    expect((await fetchFile(url, agent.token)).status).toBe(404);
  });
});
