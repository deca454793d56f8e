import type { Store, User } from './db/types.js';
import { defaultTokens } from './dtcg.js';

/** The demo user's email (`--seed-demo` creates it with three projects). */
export const DEMO_EMAIL = 'demo@codefluss.local';

const PROJECTS = [
  {
    name: 'Meine Website',
    description: 'Persönliche Website mit Blog',
    domain: 'meine-website.example',
    status: 'published' as const,
    blocks: [
      { type: 'hero', content: { title: 'Willkommen', subtitle: 'Schön, dass du da bist' } },
      { type: 'text', content: { markdown: 'Ich baue Websites mit **CODEFLUSS**.' } },
      { type: 'gallery', content: { images: ['ast:hero.jpg', 'ast:team.jpg'] } },
    ],
    assets: [
      {
        name: 'hero.jpg',
        mimeType: 'image/jpeg',
        sizeBytes: 248_113,
        url: 'https://cdn.example/meine-website/hero.jpg',
      },
      {
        name: 'team.jpg',
        mimeType: 'image/jpeg',
        sizeBytes: 180_402,
        url: 'https://cdn.example/meine-website/team.jpg',
      },
    ],
  },
  {
    name: 'Online-Shop',
    description: 'Shop für handgemachte Keramik',
    domain: 'keramik.example',
    status: 'draft' as const,
    blocks: [
      { type: 'hero', content: { title: 'Handgemacht', cta: 'Jetzt entdecken' } },
      { type: 'product-grid', content: { collection: 'bestseller', columns: 3 } },
    ],
    assets: [
      {
        name: 'logo.svg',
        mimeType: 'image/svg+xml',
        sizeBytes: 4_096,
        url: 'https://cdn.example/keramik/logo.svg',
      },
    ],
  },
  {
    name: 'Portfolio',
    description: null,
    domain: null,
    status: 'draft' as const,
    blocks: [{ type: 'text', content: { markdown: '# Arbeiten' } }],
    assets: [],
  },
];

/** A demo user with a few projects, so a newcomer sees real answers. Safe to run twice. */
export async function seedDemo(store: Store): Promise<{ user: User; created: number }> {
  const user =
    (await store.getUserByEmail(DEMO_EMAIL)) ?? (await store.createUser(DEMO_EMAIL, 'Demo'));
  if ((await store.countProjects(user.id)) > 0) return { user, created: 0 };
  for (const p of PROJECTS) {
    const project = await store.createProject(user.id, {
      name: p.name,
      description: p.description,
      domain: p.domain,
      status: p.status,
    });
    for (const block of p.blocks) await store.createBlock(project.id, block);
    for (const asset of p.assets) await store.createAsset(project.id, asset);
    await store.setDesignSystem(project.id, defaultTokens());
  }
  return { user, created: PROJECTS.length };
}
