import { Layout } from "../components/Layout";
import { Link } from "../router";

/** An unknown console address. */
export function NotFoundPage() {
  return (
    <Layout title="Page not found">
      <p>
        There is no console page at <code>{window.location.pathname}</code>.
      </p>
      <p>
        <Link to="/console/projects">Go to your projects</Link>
      </p>
    </Layout>
  );
}
