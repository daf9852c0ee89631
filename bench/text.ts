/**
 * Text for the seeded desk that searching means something over: sentences from support-desk
 * templates, a vocabulary of some 400 common words picked with a Zipf-like skew (a few words are in
 * most messages, most words in few), and a long tail of product codes, order numbers, names and
 * places, as real conversations have. Deterministic from the caller's generator.
 */
export interface Rng {
  next(): number;
  int(min: number, max: number): number;
}

const COMMON = (
  'account password login order invoice refund shipping delivery payment card subscription plan upgrade error page loading slow mobile app ' +
  'email address change cancel renew discount code missing item package tracking number warranty replacement broken screen battery settings ' +
  'profile notification charge charged twice bank transfer receipt courier parcel neighbour door weekend monday tuesday wednesday thursday friday ' +
  'morning evening yesterday today tomorrow week month year price total amount balance credit debit statement export import report download ' +
  'upload file attachment photo picture screenshot video link button menu option checkout basket cart coupon voucher gift wrap size colour ' +
  'model version update install restart reboot crash freeze frozen blank white black spinner timeout network wifi connection server outage ' +
  'maintenance backup restore sync calendar contact phone call chat support agent manager supervisor complaint feedback review rating star ' +
  'return exchange label printer print scan barcode store shop branch warehouse stock available unavailable backorder preorder estimate ' +
  'arrival late early damaged wet torn opened sealed box envelope stamp customs duty tax fee vat country region city street postcode ' +
  'apartment floor office reception signature sign verify verification identity document passport licence security question answer ' +
  'locked unlock blocked suspended closed reopen reset link expired token session cookie browser chrome firefox safari android iphone ' +
  'tablet laptop desktop keyboard mouse charger cable adapter plug socket headphones speaker microphone camera lens memory storage ' +
  'disk space full quota limit usage overage billing cycle annual monthly trial free premium business family student teacher school ' +
  'team member invite permission role admin owner transfer ownership delete remove archive history activity log audit privacy data ' +
  'consent marketing newsletter unsubscribe spam junk folder inbox forward reply thread message conversation ticket case reference ' +
  'urgent asap please thanks thank help issue problem question request information detail details confirm confirmation cancelled ' +
  'refunded processed pending approved declined rejected failed successful completed shipped dispatched delivered returned lost stolen'
).split(' ');

const GLUE =
  'the a my your our this that it is was has have not no and but or so because when after before since still again already only just also very'.split(' ');

const NAMES =
  'Anna Ben Chloe David Emma Farid Greta Hugo Ines Jonas Katja Lukas Maria Nils Olga Pavel Queenie Rafael Sofia Tomas Ursula Viktor Wiebke Xavier Yara Zoltan'.split(
    ' ',
  );
const PLACES = 'Berlin München Zürich Kraków São-Paulo Malmö Göteborg Wrocław Łódź Reykjavík Genève Córdoba Brno Porto Gdańsk Tromsø'.split(' ');

const TEMPLATES = [
  'I {verb} my {noun} {when} but the {noun} is still {state}.',
  'Could you please {verb} the {noun} for order {order}?',
  'The {noun} shows an error {code} every time I try to {verb} it.',
  'We {verb} the {noun} and {name} from {place} will follow up {when}.',
  'Your {noun} was {state} {when}, the reference is {order}.',
  'Is there any way to {verb} the {noun} without losing the {noun}?',
  'Thanks {name}, the {noun} works now, only the {noun} is {state}.',
  'Model {model} keeps showing {code} after the {noun} {update}.',
  'I was {state} for the {noun} twice, see {order} and the {noun} attached.',
  'Please {verb} the {noun} to {place}, {name} will sign for it.',
];
const VERBS = 'cancel change refund reset update verify replace return track download upload restart renew transfer delete confirm'.split(' ');
const STATES = 'missing broken late damaged pending charged locked expired declined delivered lost frozen'.split(' ');
const WHENS = 'yesterday today on monday last week this morning two days ago tomorrow'.split(' ');
const UPDATES = 'update upgrade restart reset install'.split(' ');

/** A Zipf-like pick: index i is chosen with a weight of about 1/(i+1). */
const zipf = (rng: Rng, size: number) => Math.min(size - 1, Math.floor(Math.exp(rng.next() * Math.log(size + 1)) - 1));

export function textGenerator(rng: Rng) {
  const pick = <T>(items: readonly T[]) => items[Math.floor(rng.next() * items.length)]!;
  const common = () => COMMON[zipf(rng, COMMON.length)]!;
  const fill = (template: string) =>
    template.replace(/\{(\w+)\}/g, (_, slot: string) => {
      switch (slot) {
        case 'verb':
          return pick(VERBS);
        case 'noun':
          return common();
        case 'state':
          return pick(STATES);
        case 'when':
          return pick(WHENS);
        case 'order':
          return `ORD-${rng.int(10_000, 999_999)}`;
        case 'code':
          return `E${rng.int(100, 9999)}`;
        case 'model':
          return `${pick(['XR', 'QX', 'TB', 'ZK', 'MP'])}${rng.int(10, 990)}`;
        case 'name':
          return pick(NAMES);
        case 'place':
          return pick(PLACES);
        case 'update':
          return pick(UPDATES);
        default:
          return slot;
      }
    });
  /** A free sentence of common and glue words, for variety beyond the templates. */
  const loose = () => {
    const words = Array.from({ length: rng.int(6, 14) }, () => (rng.next() < 0.35 ? pick(GLUE) : common()));
    const sentence = words.join(' ');
    return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
  };
  const sentence = () => (rng.next() < 0.6 ? fill(pick(TEMPLATES)) : loose());
  return {
    title: () => {
      const words = Array.from({ length: rng.int(3, 7) }, common).join(' ');
      return `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
    },
    /** `min` to `max` sentences. */
    sentences: (min: number, max: number) => Array.from({ length: rng.int(min, max) }, sentence).join(' '),
  };
}

/** Queries of the search figure: frequent, middling and rare words, prefixes, and pairs of them. */
export const ONE_WORD_QUERIES = [
  'refund',
  'invoice',
  'courier',
  'warranty',
  'passport',
  'refun',
  'deliv',
  'zoltan',
  'krakow',
  'checkout',
  'headphones',
  'E4711',
];
export const TWO_WORD_QUERIES = [
  'refund card',
  'parcel late',
  'password reset',
  'invoice vat',
  'battery broken',
  'courier neighbour',
  'subscription cancel',
  'login locked',
  'screen damaged',
  'export report',
];
